"""Clusters: list, detail, sync status, "sync now" (operator), test connection
(admin)."""

from __future__ import annotations

from dataclasses import asdict

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui import selectors, tasks
from webhooks_ui.api.base import ApiListView, ApiView
from webhooks_ui.api.permissions import Role, api_cluster, api_visible_clusters
from webhooks_ui.api.schema import ERRORS, errors
from webhooks_ui.api.serializers import (
    ClusterSerializer,
    ConnectionReportSerializer,
    SyncAcceptedSerializer,
    SyncStatusSerializer,
)
from webhooks_ui.services import clusters as clusters_service


@extend_schema(tags=["clusters"], responses={200: ClusterSerializer, **ERRORS})
class ClusterList(ApiListView):
    """Clusters you hold any role on, with counts and their latest sync."""

    serializer_class = ClusterSerializer

    def get_queryset(self):  # noqa: ANN201
        visible = api_visible_clusters(self.request)
        return selectors.cluster_list().filter(pk__in=visible.values("pk"))


class ClusterDetail(ApiView):
    @extend_schema(tags=["clusters"], responses={200: ClusterSerializer, **errors(404)})
    def get(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster)
        annotated = selectors.cluster_list().get(pk=found.pk)
        return Response(ClusterSerializer(annotated).data)


class ClusterSyncStatus(ApiView):
    @extend_schema(
        tags=["clusters"], responses={200: SyncStatusSerializer, **errors(404)}
    )
    def get(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster)
        return Response(SyncStatusSerializer(selectors.sync_status(cluster=found)).data)


class ClusterSync(ApiView):
    @extend_schema(
        tags=["clusters"],
        request=None,
        summary="Sync now (operator role)",
        responses={202: SyncAcceptedSerializer, **errors(403, 404)},
    )
    def post(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster, role=Role.OPERATOR)
        requested_at = timezone.now()
        tasks.cluster_sync_enqueue(cluster_id=found.pk, user_id=request.user.pk)
        status_url = reverse("api:cluster-sync-status", kwargs={"cluster": found.name})
        body = {
            "cluster": found.name,
            "requested_at": requested_at,
            "status_url": status_url,
        }
        return Response(
            SyncAcceptedSerializer(body).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": status_url},
        )


class ClusterTestConnection(ApiView):
    @extend_schema(
        tags=["clusters"],
        request=None,
        summary="Test the connection (admin role; read-only)",
        responses={
            200: OpenApiResponse(ConnectionReportSerializer),
            **errors(403, 404),
        },
    )
    def post(self, request: Request, cluster: str) -> Response:
        found = api_cluster(request, cluster, role=Role.ADMIN)
        report = clusters_service.cluster_test_connection(cluster=found)
        data = {**asdict(report), "summary": report.summary()}
        return Response(ConnectionReportSerializer(data).data)
