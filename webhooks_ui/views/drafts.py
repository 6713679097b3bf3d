"""The editor: start a draft (edit, delete, new, clone), edit it, dry-run it."""

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from webhooks_ui import selectors
from webhooks_ui.domain import form_model
from webhooks_ui.forms.draft_fields import DraftFieldsForm, form_data_from_post
from webhooks_ui.models import ChangeRequest
from webhooks_ui.permissions import Role, cluster_for
from webhooks_ui.review.drafts import (
    DraftPreview,
    draft_form_errors,
    draft_form_source,
    draft_get,
    draft_list,
    draft_preview_build,
)
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.views.rendering import render_page

Action = ChangeRequest.Action


MODES = ("yaml", "form")


def _elsewhere(request: HttpRequest, draft: ChangeRequest) -> HttpResponse | None:
    """Where to go when the change request is no longer a draft (proposed,
    applied, withdrawn...): its own page; None while it is a draft."""
    if draft.state == ChangeRequest.State.DRAFT:
        return None
    messages.info(
        request,
        f"This change is {draft.get_state_display()}, no longer a draft: it is "
        "reviewed on this page. To change it, take it back to draft here.",
    )
    url = reverse("change-detail", kwargs={"pk": draft.pk})
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _to_editor(request: HttpRequest, draft: ChangeRequest) -> HttpResponse:
    return redirect("draft-detail", pk=draft.pk)


def _page(
    request: HttpRequest,
    draft: ChangeRequest,
    partial: str,
    *,
    mode: str = "yaml",
    submitted: form_model.FormData | None = None,
    focus: str = "",
    **extra,
):
    now = timezone.now()
    preview = draft_preview_build(draft=draft, now=now)
    context = {"nav": "drafts", "draft": draft, "preview": preview, "mode": mode}
    if mode == "form" and not preview.is_delete:
        context["fields"], context["form_problem"] = _fields(
            draft, preview, now, submitted, focus
        )
    context.update(extra)
    return render_page(request, "draft_editor.html", context, partial=partial)


def _fields(
    draft: ChangeRequest,
    preview: DraftPreview,
    now: datetime,
    submitted: form_model.FormData | None = None,
    focus: str = "",
) -> tuple[DraftFieldsForm | None, str]:
    """The form showing the draft's text as saved, with its errors (and the
    causes of a failed dry run of this very text); a form just posted keeps
    its empty key/value rows (they have no place in YAML)."""
    source = draft_form_source(draft=draft)
    if source.obj is None:
        return None, source.problem
    data = form_model.object_to_form(source.obj, kind=source.kind)
    if submitted is not None:
        data = form_model.keep_blank_rows(data, submitted)
    form = DraftFieldsForm(
        data,
        kind=source.kind,
        errors=draft_form_errors(preview=preview),
        now=now,
        name_editable=draft.action != Action.UPDATE,
        focus=focus,
        has_comments=source.has_comments,
    )
    return form, ""


@login_required
@require_GET
def draft_index(request: HttpRequest) -> HttpResponse:
    context = {"nav": "drafts", "drafts": draft_list(user=request.user)}
    return render(request, "draft_list.html", context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def draft_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The editor; ``?mode=form`` shows the draft as a form, else as YAML."""
    mode = request.GET.get("mode", "yaml")
    partial = "editor-pane" if request.htmx.target == "editor-pane" else "feedback"
    draft = draft_get(user=request.user, pk=pk)
    if (elsewhere := _elsewhere(request, draft)) is not None:
        return elsewhere
    return _page(request, draft, partial, mode=mode if mode in MODES else "yaml")


@login_required
@require_POST
@vary_on_headers("HX-Request")
def draft_form_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Merge the posted form onto the draft's object (after a button's add,
    remove or move, if any), save it as YAML, and answer with the errors."""
    draft = draft_get(user=request.user, pk=pk)
    if (elsewhere := _elsewhere(request, draft)) is not None:
        return elsewhere
    source = draft_form_source(draft=draft)
    if source.obj is None:
        response = _page(request, draft, "editor-pane", mode="form")
        return reswap(retarget(response, "#editor-pane"), "outerHTML")
    op = request.POST.get("op", "")
    text, submitted = form_model.form_edit(
        source.obj,
        draft.proposed_text,
        form_data_from_post(request.POST),
        kind=source.kind,
        op=op,
    )
    state = drafts_service.draft_save(draft=draft, user=request.user, text=text)
    focus = form_model.focus_after(submitted, op)
    if not request.htmx:
        return _page(
            request,
            state.draft,
            "feedback",
            mode="form",
            submitted=submitted,
            focus=focus,
            saved=True,
        )
    return _form_reply(
        request, state.draft, submitted, whole_form=bool(op), focus=focus
    )


def _form_reply(
    request: HttpRequest,
    draft: ChangeRequest,
    submitted: form_model.FormData | None,
    *,
    whole_form: bool,
    focus: str = "",
) -> HttpResponse:
    """The htmx answer to the Form tab: the regions around the inputs, or the
    whole form after a button."""
    now = timezone.now()
    preview = draft_preview_build(draft=draft, now=now)
    fields, _ = _fields(draft, preview, now, submitted, focus)
    context = {
        "draft": draft,
        "preview": preview,
        "fields": fields,
        "whole_form": whole_form,
        "saved": True,
    }
    return render(request, "draft_form_reply.html", context)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def draft_validate(request: HttpRequest, pk: int) -> HttpResponse:
    """Save the text as typed (valid or not) and answer with the feedback."""
    draft = draft_get(user=request.user, pk=pk)
    if (elsewhere := _elsewhere(request, draft)) is not None:
        return elsewhere
    if draft.action == Action.DELETE:
        return HttpResponseBadRequest("A delete draft has no text to edit.")
    state = drafts_service.draft_save(
        draft=draft, user=request.user, text=request.POST.get("text", "")
    )
    return _page(request, state.draft, "feedback", saved=True, follow_name=True)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def draft_dry_run(request: HttpRequest, pk: int) -> HttpResponse:
    draft = draft_get(user=request.user, pk=pk)
    if (elsewhere := _elsewhere(request, draft)) is not None:
        return elsewhere
    drafts_service.draft_dry_run(
        draft=draft, user=request.user, text=request.POST.get("text")
    )
    draft.refresh_from_db()
    if request.htmx and request.POST.get("mode") == "form":
        # From the Form tab: the apiserver's causes go under their fields too.
        return _form_reply(request, draft, None, whole_form=False)
    return _page(request, draft, "feedback", saved=True)


@login_required
@require_POST
def draft_discard(request: HttpRequest, pk: int) -> HttpResponse:
    draft = draft_get(user=request.user, pk=pk)
    if (elsewhere := _elsewhere(request, draft)) is not None:
        return elsewhere
    drafts_service.draft_discard(draft=draft, user=request.user)
    if request.htmx:
        return HttpResponseClientRedirect(redirect("draft-list").url)
    return redirect("draft-list")


@login_required
@require_POST
def draft_new(request: HttpRequest, cluster: str, kind: str) -> HttpResponse:
    found = cluster_for(request.user, cluster, role=Role.EDITOR)
    draft = drafts_service.draft_start(
        user=request.user,
        configuration=None,
        cluster=found,
        action=Action.CREATE,
        kind=kind,
    )
    return _to_editor(request, draft)


def _start(request: HttpRequest, cluster: str, kind: str, name: str, action: str):
    found = cluster_for(request.user, cluster, role=Role.EDITOR)
    configuration = selectors.configuration_get(cluster=found, kind=kind, name=name)
    try:
        draft = drafts_service.draft_start(
            user=request.user, configuration=configuration, cluster=found, action=action
        )
    except drafts_service.DraftError as exc:
        messages.error(request, str(exc))
        return redirect(
            "configuration-detail", cluster=found.name, kind=kind, name=name
        )
    return _to_editor(request, draft)


@login_required
@require_POST
def draft_edit(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    """Start, or resume, the user's update draft of this configuration."""
    return _start(request, cluster, kind, name, Action.UPDATE)


@login_required
@require_POST
def draft_delete(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    """Start, or resume, the user's delete draft of this configuration."""
    return _start(request, cluster, kind, name, Action.DELETE)


@login_required
@require_POST
def draft_clone(
    request: HttpRequest, cluster: str, kind: str, name: str
) -> HttpResponse:
    """A create draft of a copy on the chosen cluster (editor role there)."""
    source = selectors.configuration_get(
        cluster=cluster_for(request.user, cluster), kind=kind, name=name
    )
    target = cluster_for(request.user, request.POST.get("target", ""), role=Role.EDITOR)
    draft = drafts_service.draft_clone(
        user=request.user,
        configuration=source,
        target=target,
        name=request.POST.get("name", "")[:253],
    )
    return _to_editor(request, draft)
