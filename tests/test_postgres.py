"""Behaviour that differs on PostgreSQL, checked on a real server.

Needs PostgreSQL at DATABASE_URL's server or 127.0.0.1:5432 (trust auth);
skipped with the reason when it cannot be reached.
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


def test_stored_objects_keep_their_key_order_on_postgresql(postgres_url, tmp_path):
    # jsonb sorts keys; "exactly as served" must hold on PostgreSQL too.
    env = {
        **os.environ,
        "DATABASE_URL": postgres_url,
        "DASHBOARD_LOCAL_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "dashboard.settings",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    current, revision = json.loads(result.stdout.strip().splitlines()[-1])
    for raw in (current, revision):
        assert list(raw) == ["kind", "apiVersion", "metadata", "webhooks"]
        assert list(raw["metadata"]) == ["name", "zeta", "alpha"]
