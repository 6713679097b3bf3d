"""Background work started from a request: runs after the request's transaction
commits, in a small in-process thread pool, and records its outcome in the
database (a SyncRun) where the page polls for it."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, transaction

from webhooks_ui.models import Cluster
from webhooks_ui.services.risk import findings_refresh_after
from webhooks_ui.services.sync import cluster_sync

logger = logging.getLogger(__name__)
_executor = ThreadPoolExecutor(
    max_workers=max(1, settings.SYNC_CONCURRENCY), thread_name_prefix="task"
)
_pending: set[Future] = set()
_pending_lock = threading.Lock()


def cluster_sync_enqueue(*, cluster_id: int, user_id: int | None) -> None:
    """Sync a cluster (then analyse its risks) in the background once the
    current transaction commits."""
    transaction.on_commit(lambda: _submit(_sync, cluster_id, user_id))


def drain(timeout: float | None = None) -> bool:
    """Wait for every queued task to finish (shutdown, tests); False on timeout."""
    with _pending_lock:
        futures = set(_pending)
    _, not_done = wait(futures, timeout=timeout)
    return not not_done


def _submit(function, *args) -> None:  # noqa: ANN001 - any task function
    future = _executor.submit(function, *args)
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future) -> None:
    with _pending_lock:
        _pending.discard(future)


def _sync(cluster_id: int, user_id: int | None) -> None:
    try:
        cluster = Cluster.objects.get(pk=cluster_id)
        user = get_user_model().objects.filter(pk=user_id).first()
        run = cluster_sync(cluster=cluster, triggered_by=user or "dashboard")
        findings_refresh_after(runs=[run])
    except Exception:  # a background thread has nobody else to tell
        logger.exception("Background sync of cluster id %s failed", cluster_id)
    finally:
        connections.close_all()
