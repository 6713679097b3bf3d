"""The home page: every cluster at a glance, and how configurations differ."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui.permissions import Role, clusters_with_role, visible_clusters
from webhooks_ui.review.overview import overview_build
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def overview(request: HttpRequest) -> HttpResponse:
    data = overview_build(
        visible=visible_clusters(request.user),
        can_sync=clusters_with_role(request.user, Role.OPERATOR),
        params=request.GET,
        page_number=request.GET.get("page"),
    )
    context = {"nav": "overview", "overview": data}
    return render_page(request, "overview.html", context, partial="matrix")
