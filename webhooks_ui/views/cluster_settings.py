"""A cluster's settings page (admin role): its approval policy, and who holds
which role on it, granted and revoked here."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from webhooks_ui.forms_memberships import MembershipGrantForm
from webhooks_ui.forms_policy import ClusterPolicyForm
from webhooks_ui.models import Cluster, ClusterMembership
from webhooks_ui.permissions import Role, cluster_for, has_role, visible_clusters
from webhooks_ui.review.cluster_settings import memberships_by_holder
from webhooks_ui.services.memberships import (
    MembershipError,
    holder_of,
    membership_grant,
    membership_revoke,
)
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
    return _page(request, found, form=form)


@login_required
@require_POST
def cluster_membership_grant(request: HttpRequest, cluster: str) -> HttpResponse:
    found = cluster_for(request.user, cluster, role=Role.ADMIN)
    grant_form = MembershipGrantForm(request.POST)
    if grant_form.is_valid():
        data = grant_form.cleaned_data
        try:
            membership_grant(
                cluster=found,
                actor=request.user,
                role=data["role"],
                **grant_form.holder(),
            )
        except MembershipError as exc:
            grant_form.add_error(exc.field, str(exc))
        else:
            messages.success(
                request,
                f"{data['holder_name']} ({data['holder_kind']}) holds the "
                f"{data['role']} role.",
            )
            return redirect("cluster-settings", cluster=found.name)
    return _page(request, found, grant_form=grant_form)


@login_required
@require_POST
def cluster_membership_revoke(
    request: HttpRequest, cluster: str, membership_id: int
) -> HttpResponse:
    found = cluster_for(request.user, cluster, role=Role.ADMIN)
    try:
        revoked = membership_revoke(
            cluster=found, actor=request.user, membership_id=membership_id
        )
    except ClusterMembership.DoesNotExist:
        raise Http404("No such membership on this cluster.") from None
    except MembershipError as exc:
        return _page(request, found, revoke_error=str(exc))
    kind, name = holder_of(revoked)
    messages.success(request, f"Revoked the {revoked.role} role from {kind} {name}.")
    return _leave_after_revoke(request, found)


def _page(
    request: HttpRequest,
    found: Cluster,
    *,
    form: ClusterPolicyForm | None = None,
    grant_form: MembershipGrantForm | None = None,
    revoke_error: str = "",
) -> HttpResponse:
    if form is None:
        saved = Cluster.objects.defer("credentials_encrypted").get(pk=found.pk)
        form = ClusterPolicyForm(instance=saved)
    context = {
        "cluster": found,
        "form": form,
        "grant_form": grant_form or MembershipGrantForm(),
        "revoke_error": revoke_error,
        "holders": memberships_by_holder(cluster=found),
    }
    return render(request, "cluster_settings.html", context)


def _leave_after_revoke(request: HttpRequest, found: Cluster) -> HttpResponse:
    # An admin may revoke their own role: send them where they may still go.
    if has_role(request.user, found, Role.ADMIN):
        return redirect("cluster-settings", cluster=found.name)
    if visible_clusters(request.user).filter(pk=found.pk).exists():
        return redirect("cluster-detail", cluster=found.name)
    return redirect("overview")
