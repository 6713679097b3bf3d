"""Background work started from a request: runs after the request's transaction
commits, in a small in-process thread pool, and records its outcome in the
database (a SyncRun) where the page polls for it."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, transaction

from webhooks_ui.models import Cluster
from webhooks_ui.services.sync import cluster_sync

logger = logging.getLogger(__name__)
_executor = ThreadPoolExecutor(
    max_workers=max(1, settings.SYNC_CONCURRENCY), thread_name_prefix="task"
)


def cluster_sync_enqueue(*, cluster_id: int, user_id: int | None) -> None:
    """Sync a cluster in the background once the current transaction commits."""
    transaction.on_commit(lambda: _executor.submit(_sync, cluster_id, user_id))


def _sync(cluster_id: int, user_id: int | None) -> None:
    try:
        cluster = Cluster.objects.get(pk=cluster_id)
        user = get_user_model().objects.filter(pk=user_id).first()
        cluster_sync(cluster=cluster, triggered_by=user or "dashboard")
    except Exception:  # a background thread has nobody else to tell
        logger.exception("Background sync of cluster id %s failed", cluster_id)
    finally:
        connections.close_all()
