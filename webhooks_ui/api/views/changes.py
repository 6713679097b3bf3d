"""Change requests: open (from an object, text or a merge patch), read, edit
with ``If-Match``, and every step of the review workflow as a POST action.

The rules are the services' (``webhooks_ui.services.changes`` and
``drafts``): these views parse, call one service, and answer with the change
request as it is now and its ``ETag``. Errors: a hidden cluster or change is
404, a missing role (or an author approving their own change) 403, a step the
change's state or policy does not allow 409, invalid content 422, a stale
``If-Match`` 412, a content edit without ``If-Match`` 428.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui.api.base import ApiListView, ApiView
from webhooks_ui.api.errors import ApiError
from webhooks_ui.api.filters import ApiChangeRequestFilterSet
from webhooks_ui.api.permissions import (
    Role,
    api_change,
    api_cluster,
    api_visible_changes,
    api_visible_clusters,
)
from webhooks_ui.api.preconditions import change_locked, if_match
from webhooks_ui.api.schema import ERRORS, KIND_PARAMETER, WORKFLOW, errors
from webhooks_ui.api.serializers import (
    ApplyResultSerializer,
    ChangeCreatedSerializer,
    ChangeCreateSerializer,
    ChangeRequestDetailSerializer,
    ChangeRequestSerializer,
    ChangeUpdateSerializer,
    DryRunResultSerializer,
    ProblemSerializer,
    PromoteResultSerializer,
    PromoteSerializer,
    RebaseSerializer,
    ReviewBodySerializer,
)
from webhooks_ui.api.views.configurations import configuration_for
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.models import ChangeRequest, ConfigurationRevision
from webhooks_ui.services import changes as changes_service
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.services.change_open import change_open

TAGS = ["changes"]
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The change request's ETag: the write is refused (412) when "
    "the request changed since.",
)
MAX_NUMBER = 2**63 - 1


def change_response(
    request: Request,
    change: ChangeRequest,
    *,
    status_code: int = status.HTTP_200_OK,
    serializer: type = ChangeRequestDetailSerializer,
    context: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """The change request as it is now, with its ETag."""
    fresh = api_change(request, change.pk)
    body = serializer(fresh, context={"user": request.user, **(context or {})})
    return Response(
        body.data, status=status_code, headers={"ETag": fresh.etag, **(headers or {})}
    )


def change_body(request: Request, change: ChangeRequest) -> dict[str, Any]:
    fresh = api_change(request, change.pk)
    return ChangeRequestDetailSerializer(fresh, context={"user": request.user}).data


def _detail(summary: str, *, request: Any = None) -> dict[str, Any]:
    """extend_schema arguments of a POST action answering with the change."""
    return {
        "tags": TAGS,
        "summary": summary,
        "parameters": [IF_MATCH],
        "request": request,
        "responses": {
            200: ChangeRequestDetailSerializer,
            **errors(400, 403, 404, *WORKFLOW),
        },
    }


@extend_schema(tags=TAGS)
class ChangeList(ApiListView):
    """Change requests of the clusters you can see (drafts: only yours),
    most recently updated first."""

    serializer_class = ChangeRequestSerializer
    filterset_class = ApiChangeRequestFilterSet

    def get_queryset(self):  # noqa: ANN201
        return api_visible_changes(self.request)

    @extend_schema(responses={200: ChangeRequestSerializer, **ERRORS})
    def get(self, request: Request, *args, **kwargs) -> Response:  # noqa: ANN002, ANN003
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Open a change request (editor role)",
        description="Starts a draft from ONE of `object`, `text` or `patch` (an "
        "RFC 7396 merge patch on the live object, update only), or from the "
        "live object (update) or a skeleton (create) without content. Invalid "
        "content is saved too: see `validation_errors`. With `propose: true` it "
        "is proposed at once when it can be; `propose_error` says why not. "
        "Your open draft of the same object and action is reused (200).",
        request=ChangeCreateSerializer,
        responses={
            201: ChangeCreatedSerializer,
            200: OpenApiResponse(
                ChangeCreatedSerializer, description="Your open draft, reused."
            ),
            **errors(400, 403, 404, *WORKFLOW),
        },
    )
    def post(self, request: Request) -> Response:
        form = ChangeCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        cluster = api_cluster(request, data["cluster"])
        opened = change_open(
            user=request.user,
            cluster=cluster,
            action=data["action"],
            kind=data["kind"],
            name=data.get("name", ""),
            obj=data.get("object"),
            text=data.get("text"),
            patch=data.get("patch"),
            title=data.get("title"),
            description=data.get("description"),
            propose=data["propose"],
        )
        url = reverse("api:change-detail", kwargs={"change_id": opened.change.pk})
        return change_response(
            request,
            opened.change,
            status_code=status.HTTP_200_OK if opened.reused else 201,
            serializer=ChangeCreatedSerializer,
            context={"propose_error": opened.propose_error},
            headers={"Location": url},
        )


class ChangeDetail(ApiView):
    @extend_schema(
        tags=TAGS,
        operation_id="v1_changes_retrieve",
        responses={200: ChangeRequestDetailSerializer, **errors(404)},
    )
    def get(self, request: Request, change_id: int) -> Response:
        return change_response(request, api_change(request, change_id))

    @extend_schema(
        tags=TAGS,
        summary="Edit the title, description or content (author)",
        description="Content (`text` or `object`) needs `If-Match` (428 without): "
        "a proposed change goes back to draft and its approvals are dismissed. "
        "Title and description alone may omit it.",
        parameters=[IF_MATCH],
        request=ChangeUpdateSerializer,
        responses={
            200: ChangeRequestDetailSerializer,
            **errors(400, 403, 404, *WORKFLOW, 428),
        },
    )
    def patch(self, request: Request, change_id: int) -> Response:
        form = ChangeUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        text = data.get("text")
        if "object" in data:
            text = dump_yaml(data["object"])
        with change_locked(request, change_id, required=text is not None) as change:
            if text is not None:
                change = changes_service.change_edit(
                    change=change, user=request.user, text=text
                )
            if "title" in data or "description" in data:
                change = changes_service.change_update_details(
                    change=change,
                    user=request.user,
                    title=data.get("title"),
                    description=data.get("description"),
                )
        return change_response(request, change)


# --- the workflow ---------------------------------------------------------------


class ChangePropose(ApiView):
    @extend_schema(**_detail("Propose the draft for review (author, editor role)"))
    def post(self, request: Request, change_id: int) -> Response:
        change = api_change(request, change_id)
        if_match(request, change)
        change = changes_service.change_propose(change=change, user=request.user)
        return change_response(request, change)


def _review(request: Request, change_id: int, verdict: str) -> Response:
    form = ReviewBodySerializer(data=request.data)
    form.is_valid(raise_exception=True)
    with change_locked(request, change_id) as change:
        changes_service.change_review(
            change=change,
            user=request.user,
            verdict=verdict,
            body=form.validated_data["body"],
        )
    return change_response(request, change)


class ChangeApprove(ApiView):
    @extend_schema(
        **_detail(
            "Approve (approver role; never the author: 403)",
            request=ReviewBodySerializer,
        )
    )
    def post(self, request: Request, change_id: int) -> Response:
        return _review(request, change_id, "approve")


class ChangeRequestChanges(ApiView):
    @extend_schema(
        **_detail(
            "Request changes (approver role; body required)",
            request=ReviewBodySerializer,
        )
    )
    def post(self, request: Request, change_id: int) -> Response:
        return _review(request, change_id, "request_changes")


class ChangeComment(ApiView):
    @extend_schema(
        **_detail(
            "Comment (anyone who can see the cluster; body required)",
            request=ReviewBodySerializer,
        )
    )
    def post(self, request: Request, change_id: int) -> Response:
        return _review(request, change_id, "comment")


class ChangeReject(ApiView):
    @extend_schema(
        **_detail(
            "Reject (approver role; not the author)", request=ReviewBodySerializer
        )
    )
    def post(self, request: Request, change_id: int) -> Response:
        return _review(request, change_id, "reject")


class ChangeReopen(ApiView):
    @extend_schema(**_detail("Take the proposal back to draft (author)"))
    def post(self, request: Request, change_id: int) -> Response:
        with change_locked(request, change_id) as change:
            change = changes_service.change_reopen(change=change, user=request.user)
        return change_response(request, change)


class ChangeWithdraw(ApiView):
    @extend_schema(**_detail("Withdraw (author); kept for the record"))
    def post(self, request: Request, change_id: int) -> Response:
        with change_locked(request, change_id) as change:
            change = changes_service.change_withdraw(change=change, user=request.user)
        return change_response(request, change)


class ChangeApply(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="Apply the approved change to its cluster (operator role)",
        description="200: applied. Otherwise the error shape, with "
        "`details: {outcome, change}`: 409 `stale` when the live object moved "
        "since the base (rebase it), 502 `apply_failed` when the cluster "
        "rejected the write (the change is now failed, with the cluster's "
        "causes), 503 `not_sent` when the cluster could not be reached before "
        "anything was sent (the change stays approved; try again).",
        parameters=[IF_MATCH],
        request=None,
        responses={
            200: ApplyResultSerializer,
            **errors(403, 404, *WORKFLOW, 502, 503),
        },
    )
    def post(self, request: Request, change_id: int) -> Response:
        change = api_change(request, change_id)
        if_match(request, change)
        outcome = changes_service.change_apply(change=change, user=request.user)
        body = {
            "outcome": {
                "status": outcome.status,
                "message": outcome.message,
                "causes": list(outcome.causes),
            },
            "change": change_body(request, outcome.change),
        }
        if outcome.applied:
            fresh = api_change(request, change.pk)
            return Response(body, headers={"ETag": fresh.etag})
        code, status_code = _APPLY_ERRORS[outcome.status]
        raise ApiError(
            outcome.message, code=code, status_code=status_code, details=body
        )


_APPLY_ERRORS = {
    "stale": ("stale", status.HTTP_409_CONFLICT),
    "failed": ("apply_failed", status.HTTP_502_BAD_GATEWAY),
    "not_sent": ("not_sent", status.HTTP_503_SERVICE_UNAVAILABLE),
}


class ChangeRebase(ApiView):
    @extend_schema(
        **_detail(
            "Rebase a stale change onto the live object (author)",
            request=RebaseSerializer,
        )
    )
    def post(self, request: Request, change_id: int) -> Response:
        form = RebaseSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        change = api_change(request, change_id)
        if_match(request, change)
        change = changes_service.change_rebase(
            change=change, user=request.user, manual=form.validated_data["manual"]
        )
        return change_response(request, change)


class ChangeDryRun(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="Dry-run the draft on its cluster (author)",
        parameters=[IF_MATCH],
        request=None,
        responses={
            200: DryRunResultSerializer,
            **errors(403, 404, *WORKFLOW),
        },
    )
    def post(self, request: Request, change_id: int) -> Response:
        change = api_change(request, change_id)
        if_match(request, change)
        result = drafts_service.draft_dry_run(draft=change, user=request.user)
        fresh = api_change(request, change.pk)
        body = {
            "ok": result.ok,
            "message": result.message,
            "errors": ProblemSerializer(result.errors, many=True).data,
            "change": change_body(request, fresh),
        }
        return Response(body, headers={"ETag": fresh.etag})


class ChangePromote(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="Open linked change requests on other clusters (editor there)",
        description="Each target gets its own change request, proposed when it "
        "validates and its cluster's dry run accepts it, reviewed under its own "
        "cluster's policy. A target where you lack the editor role gets none "
        "(see its message).",
        parameters=[IF_MATCH],
        request=PromoteSerializer,
        responses={
            200: PromoteResultSerializer,
            **errors(400, 404, *WORKFLOW),
        },
    )
    def post(self, request: Request, change_id: int) -> Response:
        form = PromoteSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        change = api_change(request, change_id)
        if_match(request, change)
        names = list(dict.fromkeys(form.validated_data["clusters"]))
        targets = list(api_visible_clusters(request).filter(name__in=names))
        unknown = sorted(set(names) - {t.name for t in targets})
        if unknown:
            raise exceptions.ValidationError(
                {"clusters": [f"No such cluster: {', '.join(unknown)}."]}
            )
        promotions = changes_service.change_promote(
            change=change, user=request.user, targets=targets
        )
        body = {"promotions": promotions}
        return Response(
            PromoteResultSerializer(body, context={"user": request.user}).data
        )


class RevisionRestore(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="Open a change request restoring this revision (editor role)",
        parameters=[KIND_PARAMETER],
        request=None,
        responses={
            201: ChangeRequestDetailSerializer,
            **errors(403, 404, *WORKFLOW),
        },
    )
    def post(
        self, request: Request, cluster: str, kind: str, name: str, number: int
    ) -> Response:
        configuration = configuration_for(request, cluster, kind, name)
        api_cluster(request, cluster, role=Role.EDITOR)
        revision = (
            ConfigurationRevision.objects.filter(
                configuration=configuration, number=number
            ).first()
            if 0 < number <= MAX_NUMBER
            else None
        )
        if revision is None:
            raise exceptions.NotFound("No such revision.")
        change = changes_service.change_restore(user=request.user, revision=revision)
        url = reverse("api:change-detail", kwargs={"change_id": change.pk})
        return change_response(
            request, change, status_code=201, headers={"Location": url}
        )
