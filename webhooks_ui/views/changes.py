"""The change request page and its actions: propose, review, apply, rebase, promote.

Each action is a POST that calls one service and redirects back to the page
with what happened as a message; the services check roles and state again
inside their transaction, so a stale page can never do what it no longer may.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from webhooks_ui import selectors
from webhooks_ui.models import ChangeRequest, Cluster
from webhooks_ui.permissions import Role, cluster_for, visible_clusters
from webhooks_ui.review.changes import change_get, change_page_build
from webhooks_ui.services import changes as changes_service

State = ChangeRequest.State


def _back(change: ChangeRequest) -> HttpResponse:
    return redirect("change-detail", pk=change.pk)


def _run(
    request: HttpRequest, change: ChangeRequest, action: Callable[[], str | None]
) -> HttpResponse:
    """Run a service action, reporting a refusal as a message on the page."""
    try:
        done = action()
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
    else:
        if done:
            messages.success(request, done)
    return _back(change)


@login_required
@require_GET
def change_detail(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    page = change_page_build(change=change, user=request.user, now=timezone.now())
    context = {"nav": "changes", "page": page, "change": change}
    context["draft"] = change  # the shared preview includes speak of a draft
    context["preview"] = page.preview
    return render(request, "change_detail.html", context)


@login_required
@require_POST
def change_propose(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    try:
        changes_service.change_propose(
            change=change,
            user=request.user,
            title=request.POST.get("title", change.title),
            description=request.POST.get("description", change.description),
        )
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
        return redirect("draft-detail", pk=change.pk)
    messages.success(request, "Proposed for review.")
    return _back(change)


@login_required
@require_POST
def change_review(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    verdict = request.POST.get("verdict", "")
    said = {
        "approve": "Approved.",
        "request_changes": "Changes requested.",
        "reject": "Rejected.",
        "comment": "Comment added.",
    }

    def act() -> str:
        changes_service.change_review(
            change=change,
            user=request.user,
            verdict=verdict,
            body=request.POST.get("body", ""),
        )
        return said.get(verdict, "")

    return _run(request, change, act)


@login_required
@require_POST
def change_apply(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    try:
        outcome = changes_service.change_apply(change=change, user=request.user)
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
        return _back(change)
    report = messages.success if outcome.applied else messages.error
    if outcome.status == "not_sent":
        report = messages.warning
    report(request, outcome.message)
    return _back(change)


@login_required
@require_POST
def change_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    try:
        changes_service.change_reopen(change=change, user=request.user)
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
        return _back(change)
    messages.info(request, "Back to draft: edit it, then propose it again.")
    return redirect("draft-detail", pk=change.pk)


@login_required
@require_POST
def change_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)

    def act() -> str:
        changes_service.change_withdraw(change=change, user=request.user)
        return "Withdrawn."

    return _run(request, change, act)


@login_required
@require_POST
def change_rebase(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    manual = request.POST.get("manual") == "1"
    try:
        rebased = changes_service.change_rebase(
            change=change, user=request.user, manual=manual
        )
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
        return _back(change)
    if rebased.state == State.DRAFT:
        messages.info(
            request,
            "Re-based on the live object: finish the edit, then propose it again.",
        )
        return redirect("draft-detail", pk=change.pk)
    messages.success(request, "Rebased and proposed again: it needs fresh approvals.")
    return _back(change)


@login_required
@require_POST
def change_promote(request: HttpRequest, pk: int) -> HttpResponse:
    change = change_get(user=request.user, pk=pk)
    names = request.POST.getlist("target")
    targets = list(visible_clusters(request.user).filter(name__in=names))
    if not targets:
        messages.error(request, "Choose at least one cluster to promote to.")
        return _back(change)

    def act() -> str:
        results = changes_service.change_promote(
            change=change, user=request.user, targets=targets
        )
        for result in results:
            messages.info(request, f"{result.cluster.name}: {result.message}")
        return ""

    return _run(request, change, act)


@login_required
@require_POST
def revision_restore(
    request: HttpRequest, cluster: str, kind: str, name: str, number: int
) -> HttpResponse:
    """Open a change request restoring one revision (editor role)."""
    found: Cluster = cluster_for(request.user, cluster, role=Role.EDITOR)
    configuration = selectors.configuration_get(cluster=found, kind=kind, name=name)
    revision = get_object_or_404(configuration.revisions, number=number)
    try:
        draft = changes_service.change_restore(user=request.user, revision=revision)
    except changes_service.ChangeError as exc:
        messages.error(request, str(exc))
        return redirect(
            "configuration-history", cluster=found.name, kind=kind, name=name
        )
    messages.info(
        request,
        f"A draft restoring revision {number}: check it, then propose it for review.",
    )
    return redirect("draft-detail", pk=draft.pk)
