"""Cluster page and the "sync now" action with its polled status."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from webhooks_ui import selectors, tasks
from webhooks_ui.permissions import Role, cluster_for, has_role
from webhooks_ui.review.cluster import cluster_page_build
from webhooks_ui.services import clusters as clusters_service
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
def cluster_detail(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster)
    page = cluster_page_build(cluster=found)
    return render(
        request,
        "cluster.html",
        {
            "page": page,
            "can_sync": has_role(request.user, found, Role.OPERATOR),
            "can_admin": has_role(request.user, found, Role.ADMIN),
            "status": selectors.sync_status(cluster=found),
        },
    )


@login_required
@require_POST
def cluster_sync(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster, role=Role.OPERATOR)
    requested_at = timezone.now()
    tasks.cluster_sync_enqueue(cluster_id=found.pk, user_id=request.user.pk)
    if not request.htmx:
        return redirect("cluster-detail", cluster=found.name)
    status = selectors.sync_status(cluster=found, requested_at=requested_at)
    return render(
        request, "cluster_sync_status.html", {"status": status, "can_sync": True}
    )


@login_required
@require_GET
@vary_on_headers("HX-Request")
def cluster_sync_status(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster)
    requested_at = parse_datetime(request.GET.get("requested", "") or "")
    status = selectors.sync_status(cluster=found, requested_at=requested_at)
    can_sync = has_role(request.user, found, Role.OPERATOR)
    response = render(
        request, "cluster_sync_status.html", {"status": status, "can_sync": can_sync}
    )
    if request.htmx and requested_at and not status.pending:
        # The sync this page was waiting for is done: counts, history and
        # findings around the status changed too, so reload the whole page.
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def cluster_test_connection(request: HttpRequest, cluster: str) -> HttpResponse:
    """Reach the cluster with its stored credentials (admin role): read-only."""
    found = cluster_for(request.user, cluster, role=Role.ADMIN)
    report = clusters_service.cluster_test_connection(cluster=found)
    context = {"cluster": found, "report": report}
    return render_page(request, "cluster_connection.html", context, partial="result")
