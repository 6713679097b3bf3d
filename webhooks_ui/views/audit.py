"""The audit log page and its CSV/JSON export (same filters, streamed)."""

import csv
from collections.abc import Iterable, Iterator

from django.contrib.auth.decorators import login_required
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    StreamingHttpResponse,
)
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui.review.audit import (
    audit_filterset,
    audit_page_build,
    export_json_chunks,
    export_rows,
)
from webhooks_ui.views.rendering import render_page

EXPORT_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


class _Echo:
    """A file-like object whose write returns the line (csv.writer streams)."""

    def write(self, value: str) -> str:
        return value


def _csv_lines(rows: Iterable[list[str]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    for row in rows:
        yield writer.writerow(row)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def audit_list(request: HttpRequest) -> HttpResponse:
    data = audit_page_build(
        user=request.user, params=request.GET, page_number=request.GET.get("page")
    )
    export_query = request.GET.copy()
    export_query.pop("page", None)
    context = {"nav": "audit", "audit": data, "export_query": export_query}
    return render_page(request, "audit_list.html", context, partial="results")


@login_required
@require_GET
def audit_export(request: HttpRequest) -> HttpResponse:
    fmt = request.GET.get("format", "csv")
    if fmt not in EXPORT_TYPES:
        return HttpResponseBadRequest("format must be csv or json.")
    filterset = audit_filterset(user=request.user, params=request.GET)
    if not filterset.is_valid():
        return HttpResponseBadRequest(
            "Invalid filters: " + filterset.errors.as_json(), content_type="text/plain"
        )
    events = filterset.qs
    if fmt == "csv":
        chunks = _csv_lines(export_rows(events))
    else:
        chunks = export_json_chunks(events)
    response = StreamingHttpResponse(chunks, content_type=EXPORT_TYPES[fmt])
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    response["Content-Disposition"] = f'attachment; filename="audit-{stamp}.{fmt}"'
    response["Cache-Control"] = "no-store"
    return response
