"""``sync_clusters``: a line per cluster, exit 1 on any failure, --watch."""

import threading
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from tests import factories
from webhooks_ui.management.commands import sync_clusters
from webhooks_ui.models import WebhookConfiguration


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox("cmd", [factories.configuration("checks")])
    yield sb
    sb.stop()


@pytest.mark.django_db(transaction=True)
def test_one_line_per_cluster_and_exit_code(sandbox, capsys):
    factories.sandbox_cluster(sandbox, name="good")
    factories.token_cluster("down", server="https://127.0.0.1:1")
    with pytest.raises(CommandError, match="1 of 2 clusters failed") as caught:
        call_command("sync_clusters")
    assert caught.value.returncode == 1
    out = capsys.readouterr().out
    assert "good: ok in" in out and "1 created" in out
    assert "down: FAILED" in out and "connection refused" in out

    call_command("sync_clusters", "--cluster", "good")
    assert "good: ok in" in capsys.readouterr().out


@pytest.mark.django_db
def test_unknown_cluster_is_an_error():
    with pytest.raises(CommandError, match="Unknown cluster"):
        call_command("sync_clusters", "--cluster", "nope")


def synced(name):
    # The test database is shared-cache in-memory SQLite: a read while the
    # watcher thread writes may answer "table is locked"; just look again.
    try:
        return WebhookConfiguration.objects.filter(name=name).exists()
    except OperationalError:
        return False


@pytest.mark.django_db(transaction=True)
def test_watch_keeps_the_database_current(sandbox, monkeypatch):
    factories.sandbox_cluster(sandbox, name="good")
    stop = threading.Event()
    monkeypatch.setattr(sync_clusters.Command, "make_stop_event", lambda self: stop)
    thread = threading.Thread(
        target=call_command, args=("sync_clusters", "--watch"), daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not synced("checks"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.3)  # the watch is open
        sandbox.store.create(factories.configuration("watched"))
        while not synced("watched"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(15)
    assert not thread.is_alive()
