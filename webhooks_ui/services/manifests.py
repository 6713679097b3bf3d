"""Checking a pasted manifest: the offline verdict of ``check_webhooks``, and
optionally the apiserver's own, by a server-side dry run on one cluster."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webhooks_ui.domain import v1beta1
from webhooks_ui.domain.checking import ObjectCheck, SourceCheck, check_objects
from webhooks_ui.domain.errors import invalid_status
from webhooks_ui.domain.manifest import LoadedObject, ManifestError, load_objects
from webhooks_ui.kube import writer
from webhooks_ui.kube.access import AccessError
from webhooks_ui.kube.errors import KubeError
from webhooks_ui.models import Cluster
from webhooks_ui.services.clusters import cluster_client

SOURCE = "manifest"


@dataclass(frozen=True)
class ManifestVerdict:
    """Every object's verdict; ``dry_runs`` is keyed by position in ``checked``."""

    check: SourceCheck
    cluster: Cluster | None
    dry_runs: dict[int, dict[str, Any]]

    @property
    def valid(self) -> bool:
        return all(c.valid for c in self.check.checked) and all(
            d["ok"] for d in self.dry_runs.values()
        )

    def as_dict(self) -> dict[str, Any]:
        """The ``check_webhooks --format json`` result per object, plus the
        apiserver's ``Status`` for invalid ones and the dry run's outcome."""
        results = []
        for number, checked in enumerate(self.check.checked):
            entry = checked.as_dict()
            entry["status"] = _status(checked)
            # None without a cluster, or where the local verdict was enough.
            entry["dry_run"] = self.dry_runs.get(number)
            results.append(entry)
        checked = self.check.checked
        return {
            "valid": self.valid,
            "cluster": self.cluster.name if self.cluster else None,
            "results": results,
            "skipped": [skip.as_dict() for skip in self.check.skipped],
            "summary": {
                "checked": len(checked),
                "valid": sum(1 for c in checked if c.valid),
                "invalid": sum(1 for c in checked if not c.valid),
                "skipped": len(self.check.skipped),
                "dry_run_failed": sum(1 for d in self.dry_runs.values() if not d["ok"]),
            },
        }


def manifest_validate(
    *, text: str, now: datetime, cluster: Cluster | None = None
) -> ManifestVerdict:
    """Check ``text`` (raises ``ManifestError`` when it does not parse); with
    ``cluster``, dry-run creating each locally valid object there (nothing is
    persisted: dryRun=All)."""
    objects = load_objects(text, source=SOURCE)
    if not objects:
        raise ManifestError("the manifest holds no objects", source=SOURCE)
    check = check_objects(objects, source=SOURCE, now=now)
    dry_runs: dict[int, dict[str, Any]] = {}
    if cluster is not None:
        dry_runs = _dry_run(cluster, objects, check)
    return ManifestVerdict(check, cluster, dry_runs)


def _status(checked: ObjectCheck) -> dict[str, Any] | None:
    if checked.valid:
        return None
    return invalid_status(checked.kind, checked.name, list(checked.errors))


def _dry_run(
    cluster: Cluster, objects: list[LoadedObject], check: SourceCheck
) -> dict[int, dict[str, Any]]:
    by_position = {(o.document, o.item): o.obj for o in objects}
    results: dict[int, dict[str, Any]] = {}
    try:
        with cluster_client(cluster=cluster) as client:
            for number, checked in enumerate(check.checked):
                if not checked.valid:
                    continue  # the apiserver would only repeat the local verdict
                position = (checked.position.document, checked.position.item)
                obj, _ = v1beta1.convert_to_v1(by_position[position])
                results[number] = _create_dry_run(client, obj)
    except AccessError as exc:
        failed = _failure(None, "", str(exc), [])
        return {n: failed for n, c in enumerate(check.checked) if c.valid}
    return results


def _create_dry_run(client: Any, obj: dict[str, Any]) -> dict[str, Any]:
    try:
        writer.create_configuration(client, obj, dry_run=True)
    except KubeError as exc:
        return _failure(exc.status, exc.reason, exc.message, exc.causes)
    return {"ok": True, "status": 201, "reason": "", "message": "", "causes": []}


def _failure(
    status: int | None, reason: str, message: str, causes: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "ok": False,
        "status": status,
        "reason": reason,
        "message": message,
        "causes": [
            {
                "field": str(c.get("field", "")),
                "reason": str(c.get("reason", "")),
                "message": str(c.get("message", "")),
            }
            for c in causes
        ],
    }
