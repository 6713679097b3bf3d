"""The fleet-wide list of risk findings."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui.permissions import visible_clusters
from webhooks_ui.review.findings import findings_page_build
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def finding_list(request: HttpRequest) -> HttpResponse:
    data = findings_page_build(
        visible=visible_clusters(request.user),
        params=request.GET,
        page_number=request.GET.get("page"),
    )
    context = {"nav": "findings", "findings": data}
    return render_page(request, "findings.html", context, partial="results")
