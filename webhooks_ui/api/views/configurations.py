"""Configurations: the fleet-wide list, one object, its history and diffs, and
one configuration compared across clusters."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui import selectors
from webhooks_ui.api.base import ApiListView, ApiView
from webhooks_ui.api.filters import ApiConfigurationFilterSet
from webhooks_ui.api.permissions import api_cluster, api_visible_clusters
from webhooks_ui.api.schema import ERRORS, KIND_PARAMETER, errors
from webhooks_ui.api.serializers import (
    CompareSerializer,
    ConfigurationDetailSerializer,
    ConfigurationSerializer,
    RevisionDiffSerializer,
    RevisionSerializer,
)
from webhooks_ui.models import WebhookConfiguration
from webhooks_ui.review.history import object_diff, revision_entries


def configuration_for(
    request: Request, cluster: str, kind: str, name: str
) -> WebhookConfiguration:
    """One configuration of a visible cluster (404 otherwise), as the UI finds it."""
    return selectors.configuration_get(
        cluster=api_cluster(request, cluster), kind=kind, name=name
    )


@extend_schema(
    tags=["configurations"], responses={200: ConfigurationSerializer, **ERRORS}
)
class ConfigurationList(ApiListView):
    """Live configurations on the clusters you can see, filtered like the overview."""

    serializer_class = ConfigurationSerializer
    filterset_class = ApiConfigurationFilterSet

    def get_queryset(self):  # noqa: ANN201
        visible = api_visible_clusters(self.request)
        return selectors.configuration_list().filter(cluster__in=visible)


class ConfigurationDetail(ApiView):
    @extend_schema(
        tags=["configurations"],
        operation_id="v1_configurations_retrieve",
        parameters=[KIND_PARAMETER],
        responses={200: ConfigurationDetailSerializer, **errors(404)},
    )
    def get(self, request: Request, cluster: str, kind: str, name: str) -> Response:
        configuration = configuration_for(request, cluster, kind, name)
        return Response(ConfigurationDetailSerializer(configuration).data)


@extend_schema(
    tags=["configurations"],
    parameters=[KIND_PARAMETER],
    responses={200: RevisionSerializer, **ERRORS},
)
class ConfigurationRevisions(ApiListView):
    """Every revision, newest first, with what changed in each."""

    serializer_class = RevisionSerializer
    filter_backends: list = []

    def get(self, request: Request, cluster: str, kind: str, name: str) -> Response:
        configuration = configuration_for(request, cluster, kind, name)
        revisions = list(selectors.configuration_revisions(configuration=configuration))
        entries = revision_entries(revisions)
        page = self.paginate_queryset(entries)
        return self.get_paginated_response(RevisionSerializer(page, many=True).data)


_FROM_TO = [
    OpenApiParameter("from", OpenApiTypes.INT, description="Older revision number."),
    OpenApiParameter("to", OpenApiTypes.INT, description="Newer revision number."),
]


class ConfigurationRevisionDiff(ApiView):
    @extend_schema(
        tags=["configurations"],
        parameters=[KIND_PARAMETER, *_FROM_TO],
        summary="Diff two revisions (default: the latest against the one before)",
        responses={200: RevisionDiffSerializer, **errors(404)},
    )
    def get(self, request: Request, cluster: str, kind: str, name: str) -> Response:
        configuration = configuration_for(request, cluster, kind, name)
        revisions = list(selectors.configuration_revisions(configuration=configuration))
        pair = selectors.revision_pair(
            revisions, request.query_params.get("from"), request.query_params.get("to")
        )
        body = {
            "from_revision": pair[0].number if pair else None,
            "to_revision": pair[1].number if pair else None,
            "diff": object_diff(pair[0].raw, pair[1].raw) if pair else None,
        }
        return Response(RevisionDiffSerializer(body).data)


class ConfigurationCompare(ApiView):
    @extend_schema(
        tags=["configurations"],
        parameters=[
            KIND_PARAMETER,
            OpenApiParameter("left", OpenApiTypes.STR, description="Cluster name."),
            OpenApiParameter("right", OpenApiTypes.STR, description="Cluster name."),
        ],
        summary="One configuration across the clusters you can see",
        responses={200: CompareSerializer, **errors(404)},
    )
    def get(self, request: Request, kind: str, name: str) -> Response:
        visible = api_visible_clusters(request)
        copies = selectors.configuration_copies(clusters=visible, kind=kind, name=name)
        left, right = selectors.compare_pair(
            copies, request.query_params.get("left"), request.query_params.get("right")
        )
        both = left is not None and right is not None
        body = {
            "kind": kind,
            "name": name,
            "copies": copies,
            "left": left.cluster.name if left else None,
            "right": right.cluster.name if right else None,
            "identical": left.comparison_hash == right.comparison_hash
            if both
            else None,
            "diff": object_diff(left.raw, right.raw) if both else None,
        }
        return Response(CompareSerializer(body).data)
