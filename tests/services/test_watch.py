"""Watch mode: events reach the database; a compaction (410) forces a relist."""

import threading
import time

import pytest
from django.db import OperationalError

from tests import factories
from webhooks_ui.domain.kinds import VALIDATING
from webhooks_ui.models import RiskFinding, SyncRun, WebhookConfiguration
from webhooks_ui.services.sync import cluster_sync
from webhooks_ui.services.watch import ClusterWatcher

pytestmark = pytest.mark.django_db(transaction=True)
API = "admissionregistration.k8s.io/v1"


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except OperationalError:
            # Shared-cache in-memory SQLite: "table is locked" while the
            # watcher thread writes; look again.
            pass
        time.sleep(0.05)
    return False


def live(name):
    return WebhookConfiguration.objects.filter(name=name, deleted_at__isnull=True)


@pytest.fixture
def watcher(sandbox, cluster):
    run = cluster_sync(cluster=cluster)
    stop = threading.Event()
    watch = ClusterWatcher(
        cluster,
        stop=stop,
        initial_versions=run.resource_versions,
        backoff_initial=0.1,
        watch_timeout=30,
    )
    watch.start()
    yield watch
    stop.set()
    watch.join()
    assert not watch.thread.is_alive(), "watcher did not stop"


def test_events_update_the_database(sandbox, watcher):
    sandbox.store.create(factories.configuration("arrives"))
    assert wait_for(lambda: live("arrives").exists())
    assert live("arrives").get().revisions.get().sync_run is None

    obj = sandbox.store.get(API, VALIDATING, "arrives")
    obj["webhooks"][0]["timeoutSeconds"] = 4
    sandbox.store.replace(obj)
    assert wait_for(lambda: live("arrives").get().revision_count == 2)

    sandbox.store.delete(API, VALIDATING, "arrives")
    assert wait_for(lambda: not live("arrives").exists())
    changes = [
        r.change
        for r in WebhookConfiguration.objects.get(name="arrives").revisions.order_by(
            "number"
        )
    ]
    assert changes == ["created", "modified", "deleted"]


def test_compaction_forces_a_relist(sandbox, cluster):
    run = cluster_sync(cluster=cluster)
    # Changes the watcher cannot replay: history is compacted past them.
    sandbox.store.create(factories.configuration("while-away"))
    sandbox.store.delete(API, VALIDATING, "checks")
    sandbox.store.compact()
    stop = threading.Event()
    watch = ClusterWatcher(
        cluster, stop=stop, initial_versions=run.resource_versions, backoff_initial=0.1
    )
    watch.start()
    try:
        assert wait_for(lambda: live("while-away").exists())
        assert not live("checks").exists()
        assert wait_for(lambda: watch.relists >= 1)
        assert SyncRun.objects.filter(triggered_by="watch", status="succeeded").exists()
        sandbox.store.create(factories.configuration("after-relist"))
        assert wait_for(lambda: live("after-relist").exists())
    finally:
        stop.set()
        watch.join()


def test_watcher_reconnects_after_the_server_drops(sandbox, watcher):
    sandbox.inject_fault("/apis/admissionregistration.k8s.io", status=503, times=2)
    watcher.close_streams()  # the server drops both watches; readers reconnect
    sandbox.store.create(factories.configuration("after-drop"))
    assert wait_for(lambda: live("after-drop").exists())


def test_risk_findings_follow_watch_events(sandbox, watcher):
    # A fail-closed webhook on pods whose service does not exist arrives by watch.
    sandbox.store.create(
        factories.configuration("orphan", service=("webhooks", "gone"))
    )
    assert wait_for(
        lambda: RiskFinding.objects.filter(
            configuration__name="orphan", check_id="service-missing"
        ).exists()
    )
    sandbox.store.delete(API, VALIDATING, "orphan")
    assert wait_for(
        lambda: (
            not RiskFinding.objects.filter(
                configuration_name="orphan", scope="cluster"
            ).exists()
        )
    )
