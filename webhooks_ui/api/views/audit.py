"""The audit log: read-only, newest first, and exported whole as CSV or JSON.

You see the events of the clusters you can see; events without a cluster
(sign-ins) are for superusers only.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from webhooks_ui.api.base import ApiListView
from webhooks_ui.api.filters import ApiAuditEventFilterSet
from webhooks_ui.api.permissions import api_visible_audit_events
from webhooks_ui.api.schema import ERRORS
from webhooks_ui.api.serializers import AuditEventSerializer
from webhooks_ui.models import AuditEvent

TAGS = ["audit"]
CSV_COLUMNS = ["at", "actor", "action", "cluster", "kind", "name", "change", "summary"]
EXPORT_CHUNK = 500
# A spreadsheet runs a cell starting with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@extend_schema(tags=TAGS, responses={200: AuditEventSerializer, **ERRORS})
class AuditEventList(ApiListView):
    """Audit events you may read, newest first."""

    serializer_class = AuditEventSerializer
    filterset_class = ApiAuditEventFilterSet

    def get_queryset(self):  # noqa: ANN201
        return api_visible_audit_events(self.request)


class _JsonOnly(BaseContentNegotiation):
    """The export picks its format from ``?format=``, not DRF's negotiation
    (which would look for a ``csv`` renderer); errors are JSON."""

    def select_parser(self, request: Request, parsers: list) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(
        self, request: Request, renderers: list, format_suffix: str | None = None
    ) -> tuple[Any, str]:
        return renderers[0], renderers[0].media_type


class AuditExport(ApiListView):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _JsonOnly
    filterset_class = ApiAuditEventFilterSet
    pagination_class = None

    def get_queryset(self):  # noqa: ANN201
        return api_visible_audit_events(self.request)

    @extend_schema(
        tags=TAGS,
        summary="Every matching event, streamed (same filters as the list)",
        description="CSV columns: " + ", ".join(CSV_COLUMNS) + ". JSON: an array "
        "of the list's events, detail included.",
        parameters=[
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                enum=["csv", "json"],
                description="csv (the default) or json",
            )
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            (200, "application/json"): AuditEventSerializer(many=True),
            **ERRORS,
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        fmt = request.query_params.get("format", "csv")
        if fmt not in ("csv", "json"):
            raise exceptions.ValidationError({"format": ["Use csv or json."]})
        events = self.filter_queryset(self.get_queryset())
        events = events.iterator(chunk_size=EXPORT_CHUNK)
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        if fmt == "csv":
            response = StreamingHttpResponse(
                _csv_lines(events), content_type="text/csv"
            )
        else:
            response = StreamingHttpResponse(
                _json_chunks(events), content_type="application/json"
            )
        response["Content-Disposition"] = f'attachment; filename="audit-{stamp}.{fmt}"'
        return response


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_lines(events: Iterator[AuditEvent]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_COLUMNS)
    for event in events:
        yield writer.writerow(
            [
                event.at.isoformat(),
                _cell(event.actor_name),
                event.action,
                _cell(event.cluster_name),
                event.configuration_kind,
                _cell(event.configuration_name),
                event.change_id or "",
                _cell(event.summary),
            ]
        )


def _cell(text: str) -> str:
    """Text a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _json_chunks(events: Iterator[AuditEvent]) -> Iterator[str]:
    yield "["
    first = True
    for event in events:
        data = AuditEventSerializer(event).data
        yield ("" if first else ",") + json.dumps(data, cls=DjangoJSONEncoder)
        first = False
    yield "]"
