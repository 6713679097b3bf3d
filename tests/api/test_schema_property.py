"""The schema against the live API, property-based (schemathesis).

Runs against Django's WSGI app, signed in with an admin's token: every
documented operation, a bounded number of generated requests each; checks
that nothing answers 5xx and every documented answer matches its schema.
Skipped where schemathesis is not installed.
"""

from __future__ import annotations

import os

import pytest

schemathesis = pytest.importorskip("schemathesis")

from django.contrib.auth.models import User  # noqa: E402
from django.core.signals import request_finished, request_started  # noqa: E402
from django.db import close_old_connections  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import response_schema_conformance  # noqa: E402

from dashboard.wsgi import application  # noqa: E402
from tests.api.test_schema import schema_document  # noqa: E402
from webhooks_ui.domain.kinds import VALIDATING  # noqa: E402
from webhooks_ui.models import ClusterMembership  # noqa: E402
from webhooks_ui.services.change_open import change_open  # noqa: E402
from webhooks_ui.services.tokens import api_token_create  # noqa: E402

# Set to a file path to record "METHOD path status" per generated request.
STATUS_LOG = os.environ.get("SCHEMATHESIS_STATUS_LOG")


@pytest.fixture(autouse=True)
def _connection_survives_requests():
    """Keep the test's database connection across the WSGI calls, as Django's
    test client does: the app closes connections when a request finishes, which
    would end the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def admin_secret(admin_user, clusters) -> str:
    return api_token_create(user=admin_user, name="schemathesis").secret


@pytest.fixture
def known_change(admin_user, clusters) -> int:
    """A change request in review, so change endpoints meet a real one."""
    opened = change_open(
        user=admin_user,
        cluster=clusters[0],
        action="update",
        kind=VALIDATING,
        name="shared-checks",
        patch={"metadata": {"labels": {"team": "platform"}}},
        propose=True,
    )
    assert opened.change.state == "in_review", opened.propose_error
    return opened.change.pk


@pytest.fixture
def known_membership(clusters) -> int:
    """A viewer on alpha, so membership endpoints meet a real one (and a real
    user to grant roles to)."""
    user = User.objects.create_user(GRANTEE)
    return ClusterMembership.objects.create(
        cluster=clusters[0], user=user, role="viewer"
    ).pk


# Built at import, from the code (no request): the same document /api/schema/
# serves. (schemathesis.pytest.from_fixture does not work with pytest 9.)
api_schema = schemathesis.openapi.from_dict(schema_document())
api_schema.app = application
KNOWN = {"cluster": "alpha", "name": "shared-checks", "number": 1}
QUERY_CLUSTER = {"/api/v1/coverage/", "/api/v1/validate/"}
GRANTEE = "schemathesis-grantee"
# Bodies naming clusters or users: aim at real ones, so creates, promotions and
# grants happen.
BODY_NAMES = {
    "/api/v1/changes/": ("cluster", "alpha"),
    "/api/v1/changes/{change_id}/promote/": ("clusters", ["beta"]),
    "/api/v1/clusters/{cluster}/memberships/": ("user", GRANTEE),
}


@api_schema.parametrize()
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_the_live_api_matches_its_schema(
    case, admin_secret, known_change, known_membership
):
    # Random path names would only ever meet 404s (tested elsewhere): aim at
    # objects that exist so the 200 answers are checked against the schema too.
    known = {**KNOWN, "change_id": known_change, "membership_id": known_membership}
    case.path_parameters = {
        **(case.path_parameters or {}),
        **{k: v for k, v in known.items() if k in (case.path_parameters or {})},
    }
    if case.query and "cluster" in case.query and case.path in QUERY_CLUSTER:
        case.query = {**case.query, "cluster": "alpha"}
    if isinstance(case.body, dict) and case.path in BODY_NAMES:
        key, value = BODY_NAMES[case.path]
        if key in case.body:
            case.body = {**case.body, key: value}
    response = case.call_and_validate(
        headers={"Authorization": f"Bearer {admin_secret}"},
        checks=[not_a_server_error, response_schema_conformance],
    )
    if STATUS_LOG:
        with open(STATUS_LOG, "a") as log:
            log.write(f"{case.method} {case.path} {response.status_code}\n")
