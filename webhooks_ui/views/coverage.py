"""Coverage: a configuration's Coverage tab, the explorer, the cluster view."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui import selectors
from webhooks_ui.permissions import cluster_for, visible_clusters
from webhooks_ui.review.coverage import configuration_coverage_build
from webhooks_ui.review.coverage_cluster import cluster_coverage_build
from webhooks_ui.review.coverage_explorer import coverage_explorer_build
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def configuration_coverage(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    configuration = selectors.configuration_get(
        cluster=cluster_for(request.user, cluster), kind=kind, name=name
    )
    coverage = configuration_coverage_build(configuration=configuration)
    context = {"configuration": configuration, "coverage": coverage, "tab": "coverage"}
    return render_page(request, "configuration_coverage.html", context, partial="tab")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def coverage_explorer(request: HttpRequest) -> HttpResponse:
    page = coverage_explorer_build(
        clusters=visible_clusters(request.user), params=request.GET
    )
    context = {"nav": "coverage", "page": page}
    return render_page(request, "coverage_explorer.html", context, partial="result")


@login_required
@require_GET
@vary_on_headers("HX-Request")
def cluster_coverage(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster)
    page = cluster_coverage_build(cluster=found, sort=request.GET.get("sort", ""))
    return render_page(
        request, "cluster_coverage.html", {"page": page}, partial="resources"
    )
