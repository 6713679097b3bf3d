"""Two sandbox clusters synced into the database, and users with various roles.

The sandboxes run once per module over real TLS sockets; each test syncs them
into its own (rolled-back) database, as a user's dashboard would.
"""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth.models import Group, User

from tests import factories
from webhooks_ui.domain.kinds import MUTATING
from webhooks_ui.models import Cluster, ClusterMembership
from webhooks_ui.services.sync import cluster_sync

PASSWORD = "correct horse battery staple"


def _shared() -> dict:
    return factories.configuration("shared-checks", webhooks=2)


def _drifting(timeout: int) -> dict:
    obj = factories.configuration("drifting")
    obj["webhooks"][0]["timeoutSeconds"] = timeout
    return obj


def _injector() -> dict:
    obj = factories.configuration(
        "sidecar-injector", kind=MUTATING, service=("webhooks", "missing-svc")
    )
    obj["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "a/b"}
    return obj


ALPHA_OBJECTS = [
    _shared(),
    _drifting(5),
    _injector(),
    factories.configuration("only-alpha"),
]
BETA_OBJECTS = [_shared(), _drifting(25), factories.namespace("team-a", {"env": "x"})]


@pytest.fixture(scope="module")
def sandboxes():
    alpha = factories.start_sandbox("alpha", copy.deepcopy(ALPHA_OBJECTS))
    beta = factories.start_sandbox("beta", copy.deepcopy(BETA_OBJECTS))
    yield alpha, beta
    alpha.stop()
    beta.stop()


@pytest.fixture
def clusters(db, sandboxes) -> tuple[Cluster, Cluster]:
    alpha_sb, beta_sb = sandboxes
    alpha = factories.sandbox_cluster(alpha_sb, environment="prod")
    beta = factories.sandbox_cluster(beta_sb, environment="staging")
    # In the test's thread: a worker thread could not see this test's rows.
    runs = [cluster_sync(cluster=alpha), cluster_sync(cluster=beta)]
    assert [run.status for run in runs] == ["succeeded", "succeeded"], [
        run.error for run in runs
    ]
    return alpha, beta


def _user(username: str, **extra) -> User:
    return User.objects.create_user(username, password=PASSWORD, **extra)


@pytest.fixture
def admin_user(db) -> User:
    return _user("root", is_superuser=True, is_staff=True)


@pytest.fixture
def role_user(db, clusters):
    """Make a user holding ``role`` on alpha, directly or through a group."""

    def make(role: str, *, via_group: bool = False) -> User:
        user = _user(f"{role}{'-g' if via_group else ''}")
        if via_group:
            group = Group.objects.create(name=f"{role}-team")
            user.groups.add(group)
            ClusterMembership.objects.create(
                cluster=clusters[0], group=group, role=role
            )
        else:
            ClusterMembership.objects.create(cluster=clusters[0], user=user, role=role)
        return user

    return make


@pytest.fixture
def nobody(db) -> User:
    return _user("nobody")


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client
