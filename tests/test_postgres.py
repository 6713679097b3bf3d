"""Behaviour that differs on PostgreSQL, checked on a real server.

Needs PostgreSQL at TEST_POSTGRES_URL's server or 127.0.0.1:5432 (trust auth);
skipped with the reason when it cannot be reached, except when REQUIRE_POSTGRES
is set (CI sets it: there, an unreachable server is a failure, not a skip).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")
ROOT = Path(__file__).resolve().parent.parent
SERVER = os.environ.get("TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")

pytestmark = pytest.mark.postgres


@pytest.fixture
def postgres_url():
    name = f"webhooks_test_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(
            f"{SERVER}/postgres", autocommit=True, connect_timeout=3
        )
    except psycopg.OperationalError as exc:
        if os.environ.get("REQUIRE_POSTGRES"):
            pytest.fail(f"REQUIRE_POSTGRES is set but {SERVER} is unreachable: {exc}")
        pytest.skip(f"PostgreSQL not reachable at {SERVER}: {exc}")
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{SERVER}/{name}"
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


SCRIPT = """
import json
from django.core.management import call_command
from django.utils import timezone
from webhooks_ui.models import Cluster, ConfigurationRevision, WebhookConfiguration
call_command("migrate", verbosity=0)
obj = {"kind": "ValidatingWebhookConfiguration",
       "apiVersion": "admissionregistration.k8s.io/v1",
       "metadata": {"name": "z", "zeta": 1, "alpha": 2}, "webhooks": []}
now = timezone.now()
cluster = Cluster.objects.create(
    name="pg", api_server_url="https://h", auth_method="token")
row = WebhookConfiguration.objects.create(cluster=cluster, kind=obj["kind"], name="z",
    raw=obj, content_hash="h", first_seen=now, last_changed=now)
ConfigurationRevision.objects.create(configuration=row, number=1, change="created",
    raw=obj, content_hash="h", observed_at=now)
print(json.dumps([WebhookConfiguration.objects.get().raw,
                  ConfigurationRevision.objects.get().raw]))
"""


def _run(script: str, postgres_url: str, tmp_path: Path) -> str:
    """Run ``script`` in a Django shell on the PostgreSQL database; its stdout."""
    env = {
        **os.environ,
        "DATABASE_URL": postgres_url,
        "DASHBOARD_LOCAL_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "dashboard.settings",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_stored_objects_keep_their_key_order_on_postgresql(postgres_url, tmp_path):
    # jsonb sorts keys; "exactly as served" must hold on PostgreSQL too.
    current, revision = json.loads(_run(SCRIPT, postgres_url, tmp_path))
    for raw in (current, revision):
        assert list(raw) == ["kind", "apiVersion", "metadata", "webhooks"]
        assert list(raw["metadata"]) == ["name", "zeta", "alpha"]


DOUBLE_APPLY = """
import json, threading
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from tests import factories
from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import AuditEvent, ClusterMembership, WebhookConfiguration
from webhooks_ui.services import changes, drafts
from webhooks_ui.services.sync import cluster_sync

call_command("migrate", verbosity=0)
assert connection.vendor == "postgresql"
sandbox = factories.start_sandbox("pg", [factories.configuration("checks")])
cluster = factories.sandbox_cluster(sandbox)
assert cluster_sync(cluster=cluster).status == "succeeded"
def member(name, role):
    user = User.objects.create_user(name)
    ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user
author, reviewer = member("author", "editor"), member("reviewer", "approver")
operators = [member("op1", "operator"), member("op2", "operator")]
live = WebhookConfiguration.objects.get(cluster=cluster, name="checks")
draft = drafts.draft_start(user=author, configuration=live, cluster=cluster,
                           action="update")
obj = load_documents(draft.proposed_text)[0]
obj["webhooks"][0]["timeoutSeconds"] = 7
drafts.draft_save(draft=draft, user=author, text=dump_yaml(obj))
change = changes.change_propose(change=draft, user=author)
changes.change_review(change=change, user=reviewer, verdict="approve")
before = sandbox.store.get("admissionregistration.k8s.io/v1",
                           "ValidatingWebhookConfiguration", "checks")
# Slow every write down so the two applies really overlap.
sandbox.inject_fault("/apis/admissionregistration.k8s.io", delay=0.7,
                     method="PUT", times=4)
barrier = threading.Barrier(2)
results = {}
def press(user):
    try:
        barrier.wait()
        outcome = changes.change_apply(change=change, user=user)
        results[user.username] = outcome.status
    except changes.ChangeError as exc:
        results[user.username] = "refused: " + str(exc)
    finally:
        connection.close()
threads = [threading.Thread(target=press, args=(u,)) for u in operators]
for t in threads: t.start()
for t in threads: t.join(60)
after = sandbox.store.get("admissionregistration.k8s.io/v1",
                          "ValidatingWebhookConfiguration", "checks")
sandbox.stop()
actions = list(AuditEvent.objects.filter(change_id=change.pk)
               .values_list("action", flat=True))
print(json.dumps({
    "results": results,
    "applied_events": actions.count("change.applied"),
    "stale_events": actions.count("change.stale"),
    "rv_before": int(before["metadata"]["resourceVersion"]),
    "rv_after": int(after["metadata"]["resourceVersion"]),
    "timeout": after["webhooks"][0]["timeoutSeconds"],
}))
"""


def test_two_operators_applying_at_once_push_once(postgres_url, tmp_path):
    # The row lock (SELECT ... FOR UPDATE) serialises the two applies: the
    # second waits, then finds the change applied and sends nothing.
    report = json.loads(_run(DOUBLE_APPLY, postgres_url, tmp_path))
    statuses = sorted(report["results"].values())
    assert statuses[0] == "applied", report
    assert statuses[1].startswith("refused:") and "is applied" in statuses[1], report
    assert report["applied_events"] == 1 and report["stale_events"] == 0, report
    assert report["timeout"] == 7
    # One write reached the cluster: its resourceVersion moved once.
    assert report["rv_after"] == report["rv_before"] + 1, report
