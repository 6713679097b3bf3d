"""A cluster's settings page: its approval policy (admin role) and who holds
which role on it (read-only; memberships are managed in the Django admin)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from webhooks_ui.forms_policy import ClusterPolicyForm
from webhooks_ui.models import Cluster
from webhooks_ui.permissions import Role, cluster_for
from webhooks_ui.review.cluster_settings import memberships_by_holder
from webhooks_ui.services.policy import PolicyError, cluster_policy_update


@login_required
@require_http_methods(["GET", "POST"])
def cluster_settings(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster, role=Role.ADMIN)
    # The form validates a copy: the page keeps showing the saved policy.
    form = ClusterPolicyForm(
        request.POST if request.method == "POST" else None,
        instance=Cluster.objects.defer("credentials_encrypted").get(pk=found.pk),
    )
    if request.method == "POST" and form.is_valid():
        try:
            cluster_policy_update(cluster=found, user=request.user, **form.cleaned_data)
        except PolicyError as exc:
            form.add_error(exc.field, str(exc))
        else:
            messages.success(request, "Approval policy saved.")
            return redirect("cluster-settings", cluster=found.name)
    context = {
        "cluster": found,
        "form": form,
        "holders": memberships_by_holder(cluster=found),
    }
    return render(request, "cluster_settings.html", context)
