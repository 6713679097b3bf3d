"""A cluster's administration, as on its settings page: the approval policy
(read with any role, changed by an admin) and who holds which role on it
(admin role).

The services (``webhooks_ui.services.policy`` and ``memberships``) hold the
rules, re-check the admin role inside their transaction and write the audit
events; these views parse, call one of them and put the service's words under
the API's field names. Revoking the cluster's last working admin is a 409
(``last_admin``): only a superuser may.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui.api.base import ApiListView, ApiView
from webhooks_ui.api.errors import ApiError
from webhooks_ui.api.permissions import Role, api_cluster
from webhooks_ui.api.schema import errors
from webhooks_ui.api.serializers import (
    ClusterPolicySerializer,
    ErrorSerializer,
    MembershipGrantSerializer,
    MembershipSerializer,
)
from webhooks_ui.models import Cluster, ClusterMembership
from webhooks_ui.services.memberships import (
    MembershipError,
    membership_grant,
    membership_revoke,
)
from webhooks_ui.services.policy import PolicyError, cluster_policy_update, policy_of

TAGS = ["clusters"]
LAST_ADMIN = OpenApiResponse(
    ErrorSerializer,
    description="It is the cluster's last working admin (code: last_admin): "
    "grant the admin role to someone else first; only a superuser may remove it.",
)


class ClusterPolicy(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="The approval policy (any role)",
        responses={200: ClusterPolicySerializer, **errors(404)},
    )
    def get(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster)
        return Response(ClusterPolicySerializer(policy_of(found)).data)

    @extend_schema(
        tags=TAGS,
        summary="Replace the approval policy (admin role)",
        request=ClusterPolicySerializer,
        responses={200: ClusterPolicySerializer, **errors(400, 403, 404)},
    )
    def put(self, request: Request, cluster: str) -> Response:
        return self._update(request, cluster, partial=False)

    @extend_schema(
        tags=TAGS,
        summary="Change some of the approval policy (admin role)",
        request=ClusterPolicySerializer,
        responses={200: ClusterPolicySerializer, **errors(400, 403, 404)},
    )
    def patch(self, request: Request, cluster: str) -> Response:
        return self._update(request, cluster, partial=True)

    def _update(self, request: Request, cluster: str, *, partial: bool) -> Response:
        found = api_cluster(request, cluster, role=Role.ADMIN)
        form = ClusterPolicySerializer(data=request.data, partial=partial)
        form.is_valid(raise_exception=True)
        try:
            updated = cluster_policy_update(
                cluster=found,
                user=request.user,
                **{**policy_of(found), **form.validated_data},
            )
        except PolicyError as exc:
            raise exceptions.ValidationError({exc.field: [str(exc)]}) from None
        return Response(ClusterPolicySerializer(policy_of(updated)).data)


class ClusterMembershipList(ApiListView):
    """Who holds which role on the cluster (admin role), oldest grant first."""

    serializer_class = MembershipSerializer
    filter_backends: list = []

    def get_queryset(self):  # noqa: ANN201
        found = api_cluster(self.request, self.kwargs["cluster"], role=Role.ADMIN)
        return memberships_of(found)

    @extend_schema(
        tags=TAGS,
        summary="Memberships of the cluster (admin role)",
        responses={200: MembershipSerializer, **errors(403, 404)},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:  # noqa: ANN002, ANN003
        return super().get(request, *args, **kwargs)

    @extend_schema(
        tags=TAGS,
        summary="Grant a role to a user or a group (admin role)",
        description="Name exactly one of `user` and `group`. Granting a role "
        "the holder already has changes nothing and answers 200.",
        request=MembershipGrantSerializer,
        responses={
            201: MembershipSerializer,
            200: OpenApiResponse(
                MembershipSerializer, description="The holder already had the role."
            ),
            **errors(400, 403, 404),
        },
    )
    def post(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster, role=Role.ADMIN)
        form = MembershipGrantSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        held_before = set(found.memberships.values_list("pk", flat=True))
        try:
            membership = membership_grant(
                cluster=found,
                actor=request.user,
                role=data["role"],
                username=data.get("user"),
                group_name=data.get("group"),
            )
        except MembershipError as exc:
            raise exceptions.ValidationError(_grant_error(exc, data)) from None
        created = membership.pk not in held_before
        return Response(
            MembershipSerializer(membership).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class ClusterMembershipDetail(ApiView):
    @extend_schema(
        tags=TAGS,
        summary="Revoke a membership (admin role)",
        responses={204: None, **errors(403, 404), 409: LAST_ADMIN},
    )
    def delete(self, request: Request, cluster: str, membership_id: int) -> Response:
        found = api_cluster(request, cluster, role=Role.ADMIN)
        try:
            membership_revoke(
                cluster=found, actor=request.user, membership_id=membership_id
            )
        except ClusterMembership.DoesNotExist:
            raise exceptions.NotFound("No such membership on this cluster.") from None
        except MembershipError as exc:
            raise ApiError(
                str(exc), code="last_admin", status_code=status.HTTP_409_CONFLICT
            ) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


def memberships_of(cluster: Cluster) -> QuerySet[ClusterMembership]:
    return (
        ClusterMembership.objects.filter(cluster=cluster)
        .select_related("user", "group")
        .order_by("pk")
    )


def _grant_error(exc: MembershipError, data: dict[str, Any]) -> dict[str, list[str]]:
    """The service names the settings form's fields; the API's are role,
    user and group."""
    field = exc.field
    if field == "holder_name":
        field = "user" if data.get("user") else "group"
    return {field or "non_field_errors": [str(exc)]}
