"""Validate a manifest: the verdict of ``check_webhooks``, optionally with the
apiserver's own (a dry-run create on one cluster, editor role)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui.api.base import ApiView
from webhooks_ui.api.errors import ApiError
from webhooks_ui.api.parsers import MANIFEST_PARSERS, manifest_text
from webhooks_ui.api.permissions import Role, api_cluster
from webhooks_ui.api.schema import errors
from webhooks_ui.api.serializers import (
    ManifestWrapperSerializer,
    ValidationReportSerializer,
)
from webhooks_ui.domain.manifest import ManifestError
from webhooks_ui.services.manifests import manifest_validate

_EXAMPLE = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: example
webhooks: []
"""


class Validate(ApiView):
    parser_classes = MANIFEST_PARSERS

    @extend_schema(
        tags=["validate"],
        summary="Check a manifest as the apiserver would on create",
        parameters=[
            OpenApiParameter(
                "cluster",
                OpenApiTypes.STR,
                description="Also dry-run the create on this cluster (editor role).",
            )
        ],
        request={
            "application/json": ManifestWrapperSerializer,
            "application/yaml": OpenApiTypes.STR,
            "text/plain": OpenApiTypes.STR,
        },
        examples=[
            OpenApiExample(
                "YAML in a JSON wrapper",
                value={"manifest": _EXAMPLE},
                request_only=True,
                media_type="application/json",
            )
        ],
        responses={200: ValidationReportSerializer, **errors(400, 403, 404)},
    )
    def post(self, request: Request) -> Response:
        cluster_name = request.query_params.get("cluster")
        cluster = (
            api_cluster(request, cluster_name, role=Role.EDITOR)
            if cluster_name is not None
            else None
        )
        text = manifest_text(request.data, request.content_type)
        try:
            verdict = manifest_validate(text=text, cluster=cluster, now=timezone.now())
        except ManifestError as error:
            raise ApiError(
                str(error),
                code="invalid_manifest",
                details={
                    "line": error.line,
                    "column": error.column,
                    "message": error.message,
                },
            ) from None
        return Response(ValidationReportSerializer(verdict.as_dict()).data)
