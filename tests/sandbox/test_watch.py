"""Watch: events after a resourceVersion, selectors, bookmarks, 410, timeouts, stop."""

from __future__ import annotations

import threading
import time

import pytest
from kubernetes import client as k8s
from kubernetes import watch
from kubernetes.client.rest import ApiException

from webhooks_ui.sandbox.server import SandboxServer

from .factories import ADMISSION, VWC, VWC_PATH, namespace, validating_configuration
from .watching import WatchStream


def _list_rv(sb: SandboxServer) -> int:
    return sb.store.resource_version


def test_events_after_a_resource_version(sandbox: SandboxServer) -> None:
    rv = _list_rv(sandbox)
    stream = WatchStream(sandbox, f"{VWC_PATH}?watch=1&resourceVersion={rv}")
    try:
        created = sandbox.store.create(validating_configuration("delta"))
        created["metadata"]["labels"] = {"x": "y"}
        sandbox.store.replace(created)
        sandbox.store.delete(ADMISSION, VWC, "delta")
        events = stream.events(3)
    finally:
        stream.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "delta"),
        ("MODIFIED", "delta"),
        ("DELETED", "delta"),
    ]
    rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert rvs == [rv + 1, rv + 2, rv + 3]
    assert events[0]["object"]["kind"] == VWC


def test_watch_without_resource_version_starts_with_current_objects(
    sandbox: SandboxServer,
) -> None:
    stream = WatchStream(sandbox, f"{VWC_PATH}?watch=true")
    try:
        initial = stream.events(3)
    finally:
        stream.close()
    assert {e["type"] for e in initial} == {"ADDED"}
    assert [e["object"]["metadata"]["name"] for e in initial] == [
        "alpha",
        "bravo",
        "charlie",
    ]


def test_selector_transitions_become_added_and_deleted(sandbox: SandboxServer) -> None:
    rv = _list_rv(sandbox)
    stream = WatchStream(
        sandbox, f"{VWC_PATH}?watch=1&resourceVersion={rv}&labelSelector=tier%3Dgold"
    )
    try:
        bravo = sandbox.store.get(ADMISSION, VWC, "bravo")
        bravo["metadata"]["labels"]["tier"] = "gold"
        sandbox.store.replace(bravo)
        alpha = sandbox.store.get(ADMISSION, VWC, "alpha")
        alpha["metadata"]["labels"]["tier"] = "bronze"
        sandbox.store.replace(alpha)
        events = stream.events(2)
    finally:
        stream.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "bravo"),
        ("DELETED", "alpha"),
    ]


def test_bookmarks_when_allowed(sandbox: SandboxServer) -> None:
    rv = _list_rv(sandbox)
    stream = WatchStream(
        sandbox, f"{VWC_PATH}?watch=1&resourceVersion={rv}&allowWatchBookmarks=true"
    )
    try:
        event = stream.next_event()
    finally:
        stream.close()
    assert event is not None and event["type"] == "BOOKMARK"
    assert event["object"]["kind"] == VWC
    assert event["object"]["metadata"]["resourceVersion"] == str(rv)


def test_send_initial_events_ends_with_a_marked_bookmark(
    sandbox: SandboxServer,
) -> None:
    stream = WatchStream(
        sandbox,
        f"{VWC_PATH}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
        "&resourceVersionMatch=NotOlderThan",
    )
    try:
        events = stream.events(4)
    finally:
        stream.close()
    assert [e["type"] for e in events] == ["ADDED", "ADDED", "ADDED", "BOOKMARK"]
    annotations = events[3]["object"]["metadata"]["annotations"]
    assert annotations == {"k8s.io/initial-events-end": "true"}


def test_compacted_resource_version_gets_410_in_the_stream(
    sandbox: SandboxServer,
) -> None:
    old_rv = _list_rv(sandbox)
    sandbox.store.create(validating_configuration("delta"))
    sandbox.store.compact()
    stream = WatchStream(sandbox, f"{VWC_PATH}?watch=1&resourceVersion={old_rv}")
    try:
        assert stream.status == 200  # as from the watch cache: an ERROR event
        event = stream.next_event()
        assert stream.next_event() is None  # and the stream ends
    finally:
        stream.close()
    assert event is not None and event["type"] == "ERROR"
    status = event["object"]
    assert (status["kind"], status["code"], status["reason"]) == (
        "Status",
        410,
        "Expired",
    )
    assert status["message"].startswith(f"too old resource version: {old_rv} (")


def test_history_window_forgets_old_events() -> None:
    with SandboxServer(history_limit=3, objects=[namespace("default")]) as sb:
        start = sb.store.resource_version  # 1: "0" would mean "from now"
        for index in range(5):
            sb.store.create(validating_configuration(f"c{index}"))
        stream = WatchStream(sb, f"{VWC_PATH}?watch=1&resourceVersion={start}")
        try:
            event = stream.next_event()
        finally:
            stream.close()
        assert event is not None and event["object"]["code"] == 410
        recent = WatchStream(
            sb, f"{VWC_PATH}?watch=1&resourceVersion={start + 2}&timeoutSeconds=1"
        )
        try:
            names = [e["object"]["metadata"]["name"] for e in recent.events(3)]
        finally:
            recent.close()
        assert names == ["c2", "c3", "c4"]


def test_python_client_sees_410_as_api_exception(
    sandbox: SandboxServer, admission_api: k8s.AdmissionregistrationV1Api
) -> None:
    old_rv = _list_rv(sandbox)
    sandbox.store.create(validating_configuration("delta"))
    sandbox.store.compact()
    with pytest.raises(ApiException) as gone:
        for _ in watch.Watch().stream(
            admission_api.list_validating_webhook_configuration,
            resource_version=str(old_rv),
            timeout_seconds=5,
        ):
            pass
    assert gone.value.status == 410


def test_python_client_watch_stream(
    sandbox: SandboxServer, admission_api: k8s.AdmissionregistrationV1Api
) -> None:
    rv = admission_api.list_validating_webhook_configuration().metadata.resource_version
    seen: list[tuple[str, str]] = []
    watcher = watch.Watch()

    def change_soon() -> None:
        time.sleep(0.3)
        sandbox.store.create(validating_configuration("delta"))

    threading.Thread(target=change_soon, daemon=True).start()
    for event in watcher.stream(
        admission_api.list_validating_webhook_configuration,
        resource_version=rv,
        timeout_seconds=5,
    ):
        seen.append((event["type"], event["object"].metadata.name))
        watcher.stop()
    assert seen == [("ADDED", "delta")]


def test_timeout_seconds_ends_the_stream(sandbox: SandboxServer) -> None:
    rv = _list_rv(sandbox)
    started = time.monotonic()
    stream = WatchStream(
        sandbox, f"{VWC_PATH}?watch=1&resourceVersion={rv}&timeoutSeconds=1"
    )
    try:
        assert stream.next_event() is None
    finally:
        stream.close()
    assert 0.9 <= time.monotonic() - started < 3


def test_stop_closes_open_watches_promptly() -> None:
    before = threading.active_count()
    sb = SandboxServer().start()
    stream = WatchStream(sb, f"{VWC_PATH}?watch=1&resourceVersion=0", read_timeout=5)
    started = time.monotonic()
    try:
        sb.stop()
        assert stream.next_event() is None
    finally:
        stream.close()
    assert time.monotonic() - started < 2
    assert threading.active_count() <= before
