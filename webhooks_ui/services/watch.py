"""Keeping the database current from watch events, one thread per cluster.

Each cluster has one writer thread (``ClusterWatcher.run``) and one reader
thread per kind. Readers resume from the last resourceVersion they saw and
reconnect with backoff; a 410 makes the writer relist (a full ``cluster_sync``)
and restart both readers from the new list's resourceVersions.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connections

from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.errors import (
    Gone,
    KubeError,
    MalformedResponse,
    ServerError,
    Unreachable,
)
from webhooks_ui.kube.watch import BOOKMARK, WatchEvent, WatchStream
from webhooks_ui.models import Cluster, SyncRun
from webhooks_ui.services.changes import changes_mark_stale
from webhooks_ui.services.clusters import cluster_client
from webhooks_ui.services.risk import findings_refresh, findings_refresh_after
from webhooks_ui.services.sync import (
    EXPECTED_ERRORS,
    cluster_sync,
    configuration_apply_event,
)

logger = logging.getLogger(__name__)
TRANSIENT = (Unreachable, ServerError, MalformedResponse)


@dataclass(frozen=True)
class _Relist:
    kind: str


@dataclass(frozen=True)
class _Failed:
    error: KubeError


class ClusterWatcher:
    """Watches both kinds of one cluster until ``stop`` is set.

    ``initial_versions`` (kind -> list resourceVersion, from a sync just made)
    skips the first relist. ``on_event`` is called after each applied event
    (tests and the command use it to report progress).
    """

    def __init__(
        self,
        cluster: Cluster,
        *,
        stop: threading.Event,
        initial_versions: dict[str, str] | None = None,
        backoff_initial: float = 1.0,
        backoff_max: float = 30.0,
        watch_timeout: int = 300,
        on_event: Callable[[str, WatchEvent], None] | None = None,
    ) -> None:
        self.cluster = cluster
        self.stop = stop
        self.versions = dict(initial_versions or {})
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.watch_timeout = watch_timeout
        self.on_event = on_event
        self.relists = 0
        self._streams: dict[str, WatchStream] = {}
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def start(self) -> threading.Thread:
        thread = threading.Thread(
            target=self.run, name=f"watch-{self.cluster.name}", daemon=True
        )
        thread.start()
        self.thread = thread
        return thread

    def join(self, timeout: float = 10.0) -> None:
        """Interrupt reads and wait for the thread (after setting ``stop``)."""
        self.close_streams()
        if self.thread is not None:
            self.thread.join(timeout)

    def close_streams(self) -> None:
        """Interrupt blocking reads (call after setting ``stop``)."""
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:
            stream.close()

    def run(self) -> None:
        delay = self.backoff_initial
        try:
            while not self.stop.is_set():
                try:
                    if not self.versions:
                        self._relist()
                    self._session()
                    delay = self.backoff_initial
                except EXPECTED_ERRORS as exc:
                    logger.warning(
                        "Watch of cluster %s: %s; retrying in %ss",
                        self.cluster.name,
                        exc,
                        delay,
                    )
                    self.stop.wait(delay)
                    delay = min(delay * 2, self.backoff_max)
                except Exception:  # noqa: BLE001 - keep watching other clusters
                    logger.exception("Watch of cluster %s failed", self.cluster.name)
                    self.stop.wait(delay)
                    delay = min(delay * 2, self.backoff_max)
        finally:
            connections.close_all()

    def _analyse(self) -> None:
        findings_refresh(clusters=[self.cluster])
        # Events moved objects under open change requests: those turn stale.
        try:
            changes_mark_stale(cluster=self.cluster)
        except Exception:  # noqa: BLE001 - derived state; keep watching
            logger.exception("Marking stale changes on %s failed", self.cluster.name)

    def _relist(self) -> None:
        run = cluster_sync(cluster=self.cluster, triggered_by="watch")
        self.relists += 1
        findings_refresh_after(runs=[run])
        if run.status != SyncRun.Status.SUCCEEDED:
            raise Unreachable(run.error or "relist failed")
        self.versions = dict(run.resource_versions)

    def _session(self) -> None:
        """Read both kinds until a 410, a lasting error, or stop."""
        events: queue.Queue[object] = queue.Queue()
        session_over = threading.Event()
        with cluster_client(cluster=self.cluster) as client:
            readers = [
                threading.Thread(
                    target=self._read,
                    args=(
                        client,
                        kind,
                        self.versions.get(kind, ""),
                        events,
                        session_over,
                    ),
                    name=f"watch-{self.cluster.name}-{kind}",
                    daemon=True,
                )
                for kind in KINDS
            ]
            for reader in readers:
                reader.start()
            try:
                self._consume(events)
            finally:
                session_over.set()
                self.close_streams()
                for reader in readers:
                    reader.join(timeout=10)

    def _consume(self, events: queue.Queue[object]) -> None:
        changed = False
        while not self.stop.is_set():
            try:
                item = events.get(timeout=0.2)
            except queue.Empty:
                if changed:
                    # A quiet moment after changes: analyse once, not per event.
                    self._analyse()
                    changed = False
                continue
            if isinstance(item, _Relist):
                logger.info(
                    "Watch of cluster %s: %s expired (410), relisting",
                    self.cluster.name,
                    item.kind,
                )
                self.versions = {}
                return
            if isinstance(item, _Failed):
                raise item.error
            assert isinstance(item, WatchEvent)
            configuration_apply_event(
                cluster=self.cluster, event_type=item.type, obj=item.object
            )
            self.versions[item.object["kind"]] = item.resource_version
            changed = True
            if self.on_event is not None:
                self.on_event(self.cluster.name, item)

    def _read(
        self,
        client: KubeClient,
        kind: str,
        resource_version: str,
        events: queue.Queue[object],
        session_over: threading.Event,
    ) -> None:
        delay = self.backoff_initial
        while not (self.stop.is_set() or session_over.is_set()):
            stream = WatchStream(
                client, kind, resource_version, timeout_seconds=self.watch_timeout
            )
            with self._lock:
                self._streams[kind] = stream
            try:
                for event in stream:
                    delay = self.backoff_initial
                    resource_version = event.resource_version or resource_version
                    if event.type != BOOKMARK:
                        events.put(event)
                # The server ended the watch (timeoutSeconds): resume at once.
            except Gone:
                events.put(_Relist(kind))
                return
            except TRANSIENT as exc:
                if self.stop.is_set() or session_over.is_set():
                    return
                logger.warning(
                    "Watch of %s on cluster %s dropped: %s; reconnecting in %ss",
                    kind,
                    self.cluster.name,
                    exc,
                    delay,
                )
                self.stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
            except KubeError as exc:
                events.put(_Failed(exc))
                return
            finally:
                with self._lock:
                    self._streams.pop(kind, None)


def clusters_watch(
    *,
    clusters: list[Cluster],
    stop: threading.Event,
    initial_versions: dict[int, dict[str, str]] | None = None,
    on_event: Callable[[str, WatchEvent], None] | None = None,
) -> list[ClusterWatcher]:
    """Start one watcher thread per cluster; set ``stop`` (and call
    ``close_streams``) to end them."""
    watchers = []
    for cluster in clusters:
        watcher = ClusterWatcher(
            cluster,
            stop=stop,
            initial_versions=(initial_versions or {}).get(cluster.pk),
            on_event=on_event,
        )
        watcher.start()
        watchers.append(watcher)
    return watchers
