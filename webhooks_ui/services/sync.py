"""Sync: read a cluster in full, then record what changed in one transaction.

Each sync leaves a ``SyncRun``. Configurations get a new revision only when
their content hash changes; ones missing from the list are marked deleted (a
``deleted`` revision, history kept) and restored if they come back.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, connections, transaction
from django.utils import timezone

from webhooks_ui.domain.normalize import fingerprint
from webhooks_ui.kube.access import AccessError
from webhooks_ui.kube.errors import KubeError
from webhooks_ui.models import (
    Cluster,
    ConfigurationRevision,
    DiscoveredResource,
    Namespace,
    Service,
    SyncRun,
    WebhookConfiguration,
)
from webhooks_ui.services.audit import Action as AuditAction
from webhooks_ui.services.audit import audit_record
from webhooks_ui.services.clusters import cluster_client
from webhooks_ui.services.credentials import CredentialsError
from webhooks_ui.services.snapshot import (
    ClusterSnapshot,
    content_hash,
    snapshot_fetch,
    webhook_counts,
)

logger = logging.getLogger(__name__)

# SQLite allows one writer; two transactions that both read then write can
# fail at once instead of waiting. Fetching stays parallel; applying is
# serialised in-process on SQLite (PostgreSQL needs no such lock). Reentrant:
# an apply holds it while recording what it wrote through the same writer.
_sqlite_write_lock = threading.RLock()
BATCH = 500
EXPECTED_ERRORS = (KubeError, AccessError, CredentialsError)
Trigger = str | AbstractBaseUser | None


@contextlib.contextmanager
def writing() -> Iterator[None]:
    lock = _sqlite_write_lock if connection.vendor == "sqlite" else None
    if lock is None:
        with transaction.atomic():
            yield
        return
    with lock, transaction.atomic():
        yield


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0


def cluster_sync(*, cluster: Cluster, triggered_by: Trigger = None) -> SyncRun:
    """Sync one cluster: fetch all first, then write all-or-nothing; never raises.

    Any failure (unreachable, rejected credentials, malformed answer, a database
    error) records a failed ``SyncRun`` and leaves the synced data as it was.
    """
    with writing():
        run = SyncRun.objects.create(
            cluster=cluster, started_at=timezone.now(), **_trigger_fields(triggered_by)
        )
    try:
        with cluster_client(cluster=cluster) as client:
            snapshot = snapshot_fetch(client, page_size=settings.SYNC_PAGE_SIZE)
        with writing():
            counts = _apply_snapshot(cluster, run, snapshot)
            _finish(
                run,
                SyncRun.Status.SUCCEEDED,
                counts=counts,
                server_version=snapshot.server_version,
                resource_versions=snapshot.resource_versions,
            )
            _audit(run, counts=counts)
            _mark_stale_changes(cluster)
    except EXPECTED_ERRORS as exc:
        _fail(run, str(exc))
    except Exception as exc:  # noqa: BLE001 - one cluster must not stop others
        logger.exception("Sync of cluster %s failed unexpectedly", cluster.name)
        _fail(run, f"Internal error during sync ({type(exc).__name__}).")
    return run


def clusters_sync(
    *, clusters: Iterable[Cluster] | None = None, triggered_by: Trigger = None
) -> list[SyncRun]:
    """Sync many clusters in parallel (``SYNC_CONCURRENCY`` at a time).

    Each cluster is independent: one failing or hanging affects no other.
    Runs come back in the order the clusters were given.
    """
    targets = list(clusters) if clusters is not None else list(Cluster.objects.all())
    if not targets:
        return []

    def one(cluster: Cluster) -> SyncRun:
        try:
            return cluster_sync(cluster=cluster, triggered_by=triggered_by)
        finally:
            connections.close_all()  # this worker thread's connections only

    workers = max(1, min(settings.SYNC_CONCURRENCY, len(targets)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sync") as pool:
        return list(pool.map(one, targets))


def configuration_apply_event(
    *, cluster: Cluster, event_type: str, obj: dict[str, Any]
) -> Counts:
    """Record one watch event (ADDED, MODIFIED, DELETED) for ``cluster``.

    The same rules as a sync: a revision only on content change; a deletion
    keeps history. Revisions from events carry no ``sync_run``.
    """
    kind = obj["kind"]
    name = obj["metadata"]["name"]
    with writing():
        writer = _ConfigurationWriter(cluster, run=None, now=timezone.now())
        if event_type == "DELETED":
            writer.delete_named({(kind, name)})
        else:
            writer.upsert([obj], only={(kind, name)})
        writer.save()
    return writer.counts


def _trigger_fields(triggered_by: Trigger) -> dict[str, Any]:
    if isinstance(triggered_by, AbstractBaseUser):
        return {
            "triggered_by": triggered_by.get_username(),
            "triggered_by_user": triggered_by,
        }
    return {"triggered_by": (triggered_by or "")[:150]}


def _finish(
    run: SyncRun,
    status: str,
    *,
    counts: Counts | None = None,
    error: str = "",
    **extra: Any,
) -> None:
    run.status = status
    run.finished_at = timezone.now()
    run.duration = run.finished_at - run.started_at
    run.error = error
    if counts is not None:
        run.created_count = counts.created
        run.updated_count = counts.updated
        run.deleted_count = counts.deleted
        run.unchanged_count = counts.unchanged
    for key, value in extra.items():
        setattr(run, key, value)
    run.save()


def _fail(run: SyncRun, error: str) -> None:
    logger.warning("Sync of cluster %s failed: %s", run.cluster.name, error)
    # The apply transaction rolled back; the run row itself was committed.
    with contextlib.suppress(Exception), writing():
        _finish(run, SyncRun.Status.FAILED, error=error, counts=Counts())
        _audit(run)


def _audit(run: SyncRun, counts: Counts | None = None) -> None:
    if counts is None:
        action, summary = AuditAction.SYNC_FAILED, f"Sync failed: {run.error}"
    else:
        action = AuditAction.SYNC_SUCCEEDED
        summary = (
            f"Synced: {counts.created} created, {counts.updated} changed, "
            f"{counts.deleted} deleted, {counts.unchanged} unchanged"
        )
    audit_record(
        action=action,
        actor=run.triggered_by_user,
        cluster=run.cluster,
        summary=summary,
        detail={"sync_run": run.pk, "triggered_by": run.triggered_by},
    )


def _mark_stale_changes(cluster: Cluster) -> None:
    """Open change requests whose object moved under them turn stale."""
    from webhooks_ui.services.changes import changes_mark_stale  # import cycle

    try:
        changes_mark_stale(cluster=cluster)
    except Exception:  # noqa: BLE001 - the sync itself succeeded and stays so
        logger.exception("Marking stale change requests on %s failed", cluster.name)


def _apply_snapshot(cluster: Cluster, run: SyncRun, snap: ClusterSnapshot) -> Counts:
    writer = _ConfigurationWriter(cluster, run=run, now=run.started_at)
    writer.upsert(snap.objects())
    writer.delete_missing(kinds=set(snap.configurations))
    writer.save()
    _replace_namespaces(cluster, snap.namespaces)
    _replace_services(cluster, snap.services)
    _replace_resources(cluster, snap.resources)
    return writer.counts


_FULL_UPDATE = [
    "uid",
    "resource_version",
    "generation",
    "raw",
    "content_hash",
    "comparison_hash",
    "webhook_count",
    "fail_closed_count",
    "revision_count",
    "last_changed",
    "deleted_at",
]
_DELETE_UPDATE = ["deleted_at", "revision_count", "last_changed"]


class _ConfigurationWriter:
    """Collects the rows a batch of observed objects implies, then bulk-writes them."""

    def __init__(self, cluster: Cluster, *, run: SyncRun | None, now: datetime) -> None:
        self.cluster = cluster
        self.run = run
        self.now = now
        self.counts = Counts()
        self.existing = {
            (row.kind, row.name): row
            for row in WebhookConfiguration.objects.filter(cluster=cluster).only(
                "id",
                "kind",
                "name",
                "content_hash",
                "comparison_hash",
                "resource_version",
                "deleted_at",
                "revision_count",
            )
        }
        self.seen: set[tuple[str, str]] = set()
        self.created: list[WebhookConfiguration] = []
        self.updated: list[WebhookConfiguration] = []
        self.deleted: list[WebhookConfiguration] = []
        self.revisions: list[tuple[WebhookConfiguration, int, str, dict | None]] = []

    def upsert(
        self, objects: list[dict[str, Any]], only: set[tuple[str, str]] | None = None
    ) -> None:
        for obj in objects:
            metadata = obj["metadata"]
            key = (obj["kind"], metadata["name"])
            if only is not None and key not in only:
                continue
            self.seen.add(key)
            digest = content_hash(obj)
            row = self.existing.get(key)
            if row is None:
                row = WebhookConfiguration(
                    cluster=self.cluster,
                    kind=key[0],
                    name=key[1],
                    first_seen=self.now,
                    revision_count=0,
                )
                self._fill(row, obj, digest, changed=True)
                self.created.append(row)
                self._revision(row, ConfigurationRevision.Change.CREATED, obj)
                self.counts.created += 1
            elif row.deleted_at is not None or row.content_hash != digest:
                restored = row.deleted_at is not None
                self._fill(row, obj, digest, changed=True)
                self.updated.append(row)
                change = (
                    ConfigurationRevision.Change.CREATED
                    if restored
                    else ConfigurationRevision.Change.MODIFIED
                )
                self._revision(row, change, obj)
                if restored:
                    self.counts.created += 1
                else:
                    self.counts.updated += 1
            elif row.resource_version != str(metadata.get("resourceVersion") or ""):
                # Same content, new resourceVersion (e.g. managedFields): keep
                # the row current for later writes, without a revision.
                self._fill(row, obj, digest, changed=False)
                self.updated.append(row)
                self.counts.unchanged += 1
            else:
                self.counts.unchanged += 1

    def delete_missing(self, *, kinds: set[str]) -> None:
        missing = {
            key
            for key, row in self.existing.items()
            if key[0] in kinds and key not in self.seen and row.deleted_at is None
        }
        self.delete_named(missing)

    def delete_named(self, keys: set[tuple[str, str]]) -> None:
        rows = [
            self.existing[key]
            for key in keys
            if key in self.existing and self.existing[key].deleted_at is None
        ]
        if not rows:
            return
        last_raw = dict(
            WebhookConfiguration.objects.filter(
                pk__in=[row.pk for row in rows]
            ).values_list("pk", "raw")
        )
        for row in rows:
            row.deleted_at = self.now
            row.last_changed = self.now
            row.raw = last_raw[row.pk]
            self.deleted.append(row)
            self._revision(row, ConfigurationRevision.Change.DELETED, None)
            self.counts.deleted += 1

    def save(self) -> None:
        WebhookConfiguration.objects.bulk_create(self.created, batch_size=BATCH)
        if self.updated:
            WebhookConfiguration.objects.bulk_update(
                self.updated, _FULL_UPDATE, batch_size=BATCH
            )
        if self.deleted:
            WebhookConfiguration.objects.bulk_update(
                self.deleted, _DELETE_UPDATE, batch_size=BATCH
            )
        ConfigurationRevision.objects.bulk_create(
            [
                ConfigurationRevision(
                    configuration=row,
                    number=number,
                    change=change,
                    raw=row.raw if obj is None else obj,
                    resource_version=row.resource_version,
                    content_hash=row.content_hash,
                    observed_at=self.now,
                    sync_run=self.run,
                )
                for row, number, change, obj in self.revisions
            ],
            batch_size=BATCH,
        )

    def _revision(
        self, row: WebhookConfiguration, change: str, obj: dict | None
    ) -> None:
        row.revision_count += 1
        self.revisions.append((row, row.revision_count, change, obj))

    def _fill(
        self,
        row: WebhookConfiguration,
        obj: dict[str, Any],
        digest: str,
        *,
        changed: bool,
    ) -> None:
        metadata = obj["metadata"]
        row.uid = str(metadata.get("uid") or "")
        row.resource_version = str(metadata.get("resourceVersion") or "")
        row.generation = int(metadata.get("generation") or 0)
        row.raw = obj
        if changed or not row.comparison_hash:
            # Normalising is the costly part of a sync: only for new content.
            row.comparison_hash = fingerprint(obj)
        row.content_hash = digest
        row.webhook_count, row.fail_closed_count = webhook_counts(obj)
        row.deleted_at = None
        if changed:
            row.last_changed = self.now


def _sync_rows(
    model: type,
    cluster: Cluster,
    keys: tuple[str, ...],
    desired: dict[tuple, dict[str, Any]],
) -> None:
    """Make ``model`` rows of ``cluster`` equal ``desired`` (key -> values), writing
    only what differs: nothing at all when the cluster did not change."""
    fields = list(next(iter(desired.values())).keys()) if desired else []
    existing = {
        tuple(getattr(row, k) for k in keys): row
        for row in model.objects.filter(cluster=cluster)
    }
    create, update = [], []
    for key, values in desired.items():
        row = existing.pop(key, None)
        if row is None:
            create.append(
                model(cluster=cluster, **dict(zip(keys, key, strict=True)), **values)
            )
        elif any(getattr(row, f) != v for f, v in values.items()):
            for f, v in values.items():
                setattr(row, f, v)
            update.append(row)
    if existing:
        model.objects.filter(pk__in=[row.pk for row in existing.values()]).delete()
    model.objects.bulk_create(create, batch_size=BATCH)
    if update:
        model.objects.bulk_update(update, fields, batch_size=BATCH)


def _replace_namespaces(cluster: Cluster, namespaces: list[dict[str, Any]]) -> None:
    desired = {}
    for ns in namespaces:
        metadata = ns.get("metadata") or {}
        if metadata.get("name"):
            desired[(metadata["name"],)] = {
                "uid": str(metadata.get("uid") or ""),
                "labels": metadata.get("labels") or {},
            }
    _sync_rows(Namespace, cluster, ("name",), desired)


def _replace_services(
    cluster: Cluster, services: dict[tuple[str, str], dict[str, Any]]
) -> None:
    _sync_rows(Service, cluster, ("namespace", "name"), services)


def _replace_resources(cluster: Cluster, resources: list[dict[str, Any]]) -> None:
    keys = ("group", "version", "resource", "subresource")
    desired = {
        tuple(r[k] for k in keys): {k: v for k, v in r.items() if k not in keys}
        for r in resources
    }
    _sync_rows(DiscoveredResource, cluster, keys, desired)
