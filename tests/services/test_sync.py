"""Sync against real sandboxes: revisions on change only, deletion, isolation,
all-or-nothing writes."""

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests import factories
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.kube import reader
from webhooks_ui.models import (
    ConfigurationRevision,
    DiscoveredResource,
    Namespace,
    Service,
    SyncRun,
    WebhookConfiguration,
)
from webhooks_ui.services import snapshot as snapshot_module
from webhooks_ui.services import sync as sync_module
from webhooks_ui.services.sync import cluster_sync, clusters_sync

pytestmark = pytest.mark.django_db


def state():
    """Everything sync writes besides SyncRun, for before/after comparisons."""
    return {
        "configurations": list(WebhookConfiguration.objects.order_by("pk").values()),
        "revisions": list(ConfigurationRevision.objects.order_by("pk").values()),
        "namespaces": list(Namespace.objects.order_by("pk").values()),
        "services": list(Service.objects.order_by("pk").values()),
        "resources": DiscoveredResource.objects.count(),
    }


def edit(sandbox, kind, name, change):
    obj = sandbox.store.get("admissionregistration.k8s.io/v1", kind, name)
    change(obj)
    obj["metadata"].pop("resourceVersion", None)
    sandbox.store.replace(obj)


def test_first_sync_records_everything(cluster):
    run = cluster_sync(cluster=cluster, triggered_by="test")
    assert run.status == SyncRun.Status.SUCCEEDED, run.error
    assert (run.created_count, run.updated_count, run.deleted_count) == (2, 0, 0)
    assert run.server_version.startswith("v1.")
    assert set(run.resource_versions) == {MUTATING, VALIDATING}
    assert run.triggered_by == "test" and run.duration is not None

    checks = WebhookConfiguration.objects.get(kind=VALIDATING, name="checks")
    assert checks.raw["kind"] == VALIDATING
    assert checks.raw["metadata"]["resourceVersion"] == checks.resource_version
    assert (checks.webhook_count, checks.fail_closed_count) == (2, 2)
    assert checks.uid and checks.generation == 1
    mutate = WebhookConfiguration.objects.get(kind=MUTATING)
    assert (mutate.webhook_count, mutate.fail_closed_count) == (1, 0)
    revision = checks.revisions.get()
    assert (revision.number, revision.change, revision.sync_run) == (1, "created", run)

    service = Service.objects.get(cluster=cluster)
    assert (service.namespace, service.name, service.exists) == (
        "webhooks",
        "checker",
        True,
    )
    assert service.ready_endpoint_count == 1 and service.has_ready_endpoints
    assert Namespace.objects.filter(cluster=cluster, name="webhooks").exists()
    assert DiscoveredResource.objects.filter(
        cluster=cluster, resource="pods", subresource="status"
    ).exists()


def test_pagination_with_small_pages(settings, sandbox, cluster):
    settings.SYNC_PAGE_SIZE = 2
    for index in range(5):
        sandbox.store.create(factories.configuration(f"more-{index}"))
    pages = []
    original = reader.list_all

    def spy(client, path, **kwargs):
        result = original(client, path, **kwargs)
        pages.append((path, result.pages))
        return result

    reader.list_all = spy
    try:
        run = cluster_sync(cluster=cluster)
    finally:
        reader.list_all = original
    assert run.status == "succeeded", run.error
    assert WebhookConfiguration.objects.filter(kind=VALIDATING).count() == 6
    assert (reader.configurations_path(VALIDATING), 3) in pages


def test_revisions_only_on_change(sandbox, cluster):
    cluster_sync(cluster=cluster)
    before = state()
    with CaptureQueriesContext(connection) as queries:
        run = cluster_sync(cluster=cluster)
    assert (run.created_count, run.updated_count, run.unchanged_count) == (0, 0, 2)
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].split(" ", 1)[0] in {"INSERT", "UPDATE", "DELETE"}
    ]
    # Only the run's own record and its audit event: no configuration rows.
    bookkeeping = ("webhooks_ui_syncrun", "webhooks_ui_auditevent")
    assert writes and all(any(t in sql for t in bookkeeping) for sql in writes), writes
    assert state() == before

    edit(
        sandbox,
        VALIDATING,
        "checks",
        lambda o: o["webhooks"][0].update(timeoutSeconds=3),
    )
    run = cluster_sync(cluster=cluster)
    assert (run.updated_count, run.unchanged_count) == (1, 1)
    checks = WebhookConfiguration.objects.get(name="checks")
    assert checks.revision_count == 2
    latest = checks.revisions.order_by("-number").first()
    assert (latest.number, latest.change) == (2, "modified")
    assert latest.raw["webhooks"][0]["timeoutSeconds"] == 3
    assert checks.revisions.get(number=1).raw["webhooks"][0].get("timeoutSeconds") != 3


def test_deleted_then_restored(sandbox, cluster):
    cluster_sync(cluster=cluster)
    sandbox.store.delete("admissionregistration.k8s.io/v1", VALIDATING, "checks")
    run = cluster_sync(cluster=cluster)
    assert run.deleted_count == 1
    checks = WebhookConfiguration.objects.get(name="checks")
    assert checks.deleted_at is not None and checks.is_deleted
    deleted = checks.revisions.get(number=2)
    assert deleted.change == "deleted" and deleted.raw["metadata"]["name"] == "checks"
    assert cluster_sync(cluster=cluster).deleted_count == 0  # still gone: no new row

    sandbox.store.create(factories.configuration("checks", webhooks=2))
    run = cluster_sync(cluster=cluster)
    assert run.created_count == 1
    checks.refresh_from_db()
    assert checks.deleted_at is None
    assert [r.change for r in checks.revisions.order_by("number")] == [
        "created",
        "deleted",
        "created",
    ]


def test_missing_service_is_recorded(sandbox, cluster):
    sandbox.store.create(factories.configuration("lost", service=("nowhere", "ghost")))
    cluster_sync(cluster=cluster)
    ghost = Service.objects.get(name="ghost")
    assert not ghost.exists and not ghost.has_ready_endpoints


@pytest.mark.django_db(transaction=True)
def test_one_cluster_failing_mid_run_does_not_affect_another(sandbox):
    healthy = factories.sandbox_cluster(sandbox)
    other_sb = factories.start_sandbox("beta", [factories.configuration("beta-checks")])
    try:
        other = factories.sandbox_cluster(other_sb)
        assert cluster_sync(cluster=other).status == "succeeded"
        before = list(WebhookConfiguration.objects.filter(cluster=other).values())
        # Slow the beta list down, then stop beta while the request is open.
        other_sb.inject_fault("/apis/admissionregistration.k8s.io", delay=1.0)
        threading.Timer(0.3, other_sb.stop).start()
        runs = clusters_sync(clusters=[healthy, other])
    finally:
        other_sb.stop()
    by_name = {run.cluster.name: run for run in runs}
    assert by_name["alpha"].status == "succeeded", by_name["alpha"].error
    failed = by_name["beta"]
    assert failed.status == "failed"
    assert "Cluster 'beta'" in failed.error
    assert any(
        words in failed.error
        for words in ("closed unexpectedly", "connection refused", "no answer")
    ), failed.error
    assert list(WebhookConfiguration.objects.filter(cluster=other).values()) == before
    assert WebhookConfiguration.objects.filter(cluster=healthy).count() == 2


def test_bad_credentials_fail_clearly(sandbox):
    cluster = factories.token_cluster(
        "wrong", server=sandbox.url, token="not-a-token", ca_pem=sandbox.ca_pem
    )
    run = cluster_sync(cluster=cluster)
    assert run.status == "failed"
    assert "unauthorized" in run.error and "not-a-token" not in run.error


def test_malformed_response_fails_and_keeps_data(sandbox, cluster):
    cluster_sync(cluster=cluster)
    before = state()
    sandbox.inject_fault(reader.configurations_path(MUTATING), malformed=True)
    run = cluster_sync(cluster=cluster)
    assert run.status == "failed" and "not valid JSON" in run.error
    assert state() == before


def test_fault_on_the_last_request_leaves_the_database_unchanged(sandbox, cluster):
    cluster_sync(cluster=cluster)
    sandbox.store.create(factories.configuration("added"))
    sandbox.store.delete("admissionregistration.k8s.io/v1", MUTATING, "mutate")
    before = state()
    original = reader.discover

    def discover_then_fail(client):
        # /api is next, then /apis: the sync's last request answers 500.
        sandbox.inject_fault("/apis", status=500)
        return original(client)

    reader.discover = discover_then_fail
    try:
        run = cluster_sync(cluster=cluster)
    finally:
        reader.discover = original
    assert run.status == "failed" and "HTTP 500" in run.error
    assert state() == before
    assert cluster_sync(cluster=cluster).created_count == 1  # and it recovers


def test_database_error_while_writing_rolls_everything_back(
    sandbox, cluster, monkeypatch
):
    cluster_sync(cluster=cluster)
    sandbox.store.create(factories.configuration("added"))
    before = state()

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sync_module, "_replace_resources", explode)
    run = cluster_sync(cluster=cluster)
    assert run.status == "failed" and "RuntimeError" in run.error
    assert state() == before


def test_content_hash_ignores_server_churn():
    obj = factories.configuration("x")
    obj["metadata"].update(resourceVersion="1", generation=1, managedFields=[{"a": 1}])
    churned = {
        **obj,
        "metadata": {
            **obj["metadata"],
            "resourceVersion": "9",
            "generation": 2,
            "managedFields": [],
        },
    }
    assert snapshot_module.content_hash(obj) == snapshot_module.content_hash(churned)
    changed = {**obj, "metadata": {**obj["metadata"], "labels": {"a": "b"}}}
    assert snapshot_module.content_hash(obj) != snapshot_module.content_hash(changed)


@pytest.mark.django_db(transaction=True)
def test_clusters_sync_runs_in_parallel(settings, sandbox):
    settings.SYNC_CONCURRENCY = 2
    one = factories.sandbox_cluster(sandbox, name="one")
    two = factories.sandbox_cluster(sandbox, name="two")
    sandbox.inject_fault("/version", delay=0.5, times=2)
    start = time.monotonic()
    runs = clusters_sync(clusters=[one, two])
    assert [r.status for r in runs] == ["succeeded", "succeeded"]
    assert time.monotonic() - start < 1.0 + 0.9
