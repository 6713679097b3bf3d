"""The audit log as the page and the exports show it.

Read side only. A user sees the events of the clusters they can see; events
without a cluster (sign-ins) and those of clusters since removed are for
superusers only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet

from webhooks_ui.filters import AuditEventFilterSet
from webhooks_ui.models import AuditEvent, WebhookConfiguration
from webhooks_ui.permissions import AnyUser, visible_clusters
from webhooks_ui.services.audit import Action

AUDIT_PAGE_SIZE = 50
EXPORT_CHUNK = 500
EXPORT_COLUMNS = ("at", "actor", "action", "cluster", "kind", "name", "change")
# A spreadsheet runs a cell starting with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def audit_actions() -> list[str]:
    """Every action id the filter offers."""
    return Action.all()


def audit_events(*, user: AnyUser) -> QuerySet[AuditEvent]:
    """The events ``user`` may read, newest first."""
    events = AuditEvent.objects.order_by("-at", "-pk")
    if user.is_authenticated and user.is_active and user.is_superuser:
        return events
    return events.filter(cluster_id__in=visible_clusters(user).values("pk"))


def audit_filterset(*, user: AnyUser, params: Any) -> AuditEventFilterSet:
    return AuditEventFilterSet(
        params,
        queryset=audit_events(user=user),
        clusters=visible_clusters(user),
        actions=audit_actions(),
    )


@dataclass(frozen=True)
class AuditRow:
    event: AuditEvent
    configuration_exists: bool
    detail_json: str


@dataclass
class AuditPage:
    filterset: AuditEventFilterSet
    page: Page
    rows: list[AuditRow]


def audit_page_build(*, user: AnyUser, params: Any, page_number: Any) -> AuditPage:
    filterset = audit_filterset(user=user, params=params)
    page = Paginator(filterset.qs, AUDIT_PAGE_SIZE).get_page(page_number)
    events = list(page.object_list)
    existing = _existing_configurations(events)
    rows = [
        AuditRow(
            event=event,
            configuration_exists=_target(event) in existing,
            detail_json=_pretty(event.detail) if event.detail else "",
        )
        for event in events
    ]
    return AuditPage(filterset, page, rows)


def _target(event: AuditEvent) -> tuple[int | None, str, str]:
    return (event.cluster_id, event.configuration_kind, event.configuration_name)


def _existing_configurations(events: list[AuditEvent]) -> set[tuple]:
    """Which (cluster, kind, name) of these events have a configuration page
    (one query for the whole page)."""
    wanted = {
        _target(e)
        for e in events
        if e.cluster_id and e.configuration_kind and e.configuration_name
    }
    if not wanted:
        return set()
    match = Q()
    for cluster_id, kind, name in wanted:
        match |= Q(cluster_id=cluster_id, kind=kind, name=name)
    return set(
        WebhookConfiguration.objects.filter(match).values_list(
            "cluster_id", "kind", "name"
        )
    )


def _pretty(detail: Any) -> str:
    return json.dumps(detail, indent=2, sort_keys=True, ensure_ascii=False)


# --- export ----------------------------------------------------------------------


def csv_safe(value: Any) -> str:
    """A cell a spreadsheet shows as text, never runs (CSV injection)."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text


def export_record(event: AuditEvent, *, with_detail: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "at": event.at.isoformat(),
        "actor": event.actor_name,
        "action": event.action,
        "cluster": event.cluster_name,
        "kind": event.configuration_kind,
        "name": event.configuration_name,
        "change": event.change_id,
        "summary": event.summary,
    }
    if with_detail:
        record["detail"] = event.detail
    return record


def export_rows(events: QuerySet[AuditEvent]) -> Iterator[list[str]]:
    """The CSV header, then one guarded row per event."""
    yield [*EXPORT_COLUMNS, "summary"]
    for event in events.defer("detail").iterator(chunk_size=EXPORT_CHUNK):
        record = export_record(event, with_detail=False)
        yield [csv_safe(record[column]) for column in (*EXPORT_COLUMNS, "summary")]


def export_json_chunks(events: QuerySet[AuditEvent]) -> Iterator[str]:
    """A JSON array of events (with detail), one element per chunk."""
    yield "["
    separator = "\n"
    for event in events.iterator(chunk_size=EXPORT_CHUNK):
        record = export_record(event, with_detail=True)
        yield separator + json.dumps(record, ensure_ascii=False, sort_keys=False)
        separator = ",\n"
    yield "\n]\n"
