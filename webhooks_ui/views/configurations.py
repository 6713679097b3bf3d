"""A configuration: explained, as YAML, its history, and across clusters."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui import selectors
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.permissions import Role, cluster_for, has_role, visible_clusters
from webhooks_ui.review.configuration import configuration_page_build
from webhooks_ui.review.highlight import highlight_yaml
from webhooks_ui.review.history import object_diff, revision_entries
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def configuration_detail(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    configuration = selectors.configuration_get(
        cluster=cluster_for(request.user, cluster), kind=kind, name=name
    )
    page = configuration_page_build(configuration=configuration, now=timezone.now())
    return render_page(
        request,
        "configuration.html",
        {"configuration": configuration, "page": page, "tab": "overview"},
        partial="tab",
    )


@login_required
@require_GET
@vary_on_headers("HX-Request")
def configuration_yaml(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    configuration = selectors.configuration_get(
        cluster=cluster_for(request.user, cluster), kind=kind, name=name
    )
    text = dump_yaml(configuration.raw)
    if request.GET.get("download"):
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        filename = f"{configuration.cluster.name}-{configuration.name}.yaml"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    return render_page(
        request,
        "configuration_yaml.html",
        {
            "configuration": configuration,
            "yaml_text": text,
            "yaml_html": highlight_yaml(text),
            "tab": "yaml",
        },
        partial="tab",
    )


@login_required
@require_GET
@vary_on_headers("HX-Request")
def configuration_history(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    configuration = selectors.configuration_get(
        cluster=cluster_for(request.user, cluster), kind=kind, name=name
    )
    revisions = list(selectors.configuration_revisions(configuration=configuration))
    chosen = selectors.revision_pair(
        revisions, request.GET.get("from"), request.GET.get("to")
    )
    context = {
        "configuration": configuration,
        "entries": revision_entries(revisions),
        "tab": "history",
        "pair": chosen,
        "diff": object_diff(chosen[0].raw, chosen[1].raw) if chosen else None,
        # Restoring a revision opens a change request: editors only.
        "can_restore": has_role(request.user, configuration.cluster, Role.EDITOR),
    }
    return render_page(request, "configuration_history.html", context, partial="tab")


@login_required
@require_GET
def configuration_compare(request: HttpRequest, kind: str, name: str) -> HttpResponse:
    visible = visible_clusters(request.user)
    copies = selectors.configuration_copies(clusters=visible, kind=kind, name=name)
    left, right = selectors.compare_pair(
        copies, request.GET.get("left"), request.GET.get("right")
    )
    diff = object_diff(left.raw, right.raw) if left and right else None
    context = {
        "kind": kind,
        "name": name,
        "copies": copies,
        "left": left,
        "right": right,
        "diff": diff,
    }
    return render(request, "configuration_compare.html", context)
