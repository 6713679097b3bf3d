"""Coverage: who intercepts a request (the explorer) and what each webhook of a
configuration intercepts."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui.api.base import ApiView
from webhooks_ui.api.permissions import api_cluster, api_visible_clusters
from webhooks_ui.api.schema import KIND_PARAMETER, errors
from webhooks_ui.api.serializers import (
    ConfigurationCoverageSerializer,
    CoverageExplorerSerializer,
)
from webhooks_ui.api.views.configurations import configuration_for
from webhooks_ui.domain.discovery import OPERATION_ORDER
from webhooks_ui.review.coverage import configuration_coverage_build
from webhooks_ui.review.coverage_explorer import coverage_explorer_build


def _param(name: str, description: str, **kwargs) -> OpenApiParameter:  # noqa: ANN003
    return OpenApiParameter(name, OpenApiTypes.STR, description=description, **kwargs)


# The explorer page's form fields (coverage_forms.CoverageExplorerForm).
EXPLORER_PARAMETERS = [
    _param("cluster", "Cluster name.", required=True),
    _param(
        "resource", "group/version/resource[/subresource], e.g. v1/pods.", required=True
    ),
    _param(
        "operation", "Admission operation.", enum=list(OPERATION_ORDER), required=True
    ),
    _param("namespace", "Namespace (blank for a cluster-scoped resource)."),
    _param("labels", "Object labels, one key=value a line."),
    _param("sample", "A sample object (YAML or JSON)."),
    _param("username", "The requesting user."),
    _param("groups", "The user's groups, comma-separated."),
]


class CoverageExplorer(ApiView):
    @extend_schema(
        tags=["coverage"],
        parameters=EXPLORER_PARAMETERS,
        summary="Which webhooks would the apiserver call for this request?",
        responses={200: CoverageExplorerSerializer, **errors(400, 404)},
    )
    def get(self, request: Request) -> Response:
        # A cluster you may not see is a 404 here too, as on every other URL.
        api_cluster(request, request.query_params.get("cluster", ""))
        params = request.query_params
        page = coverage_explorer_build(
            clusters=api_visible_clusters(request), params=params
        )
        if not page.form.is_valid():
            raise exceptions.ValidationError(page.form.errors.get_json_data())
        if page.question is None:
            raise exceptions.ValidationError(
                {
                    "resource": [
                        {"message": "This field is required.", "code": "required"}
                    ]
                }
            )
        return Response(CoverageExplorerSerializer(page).data)


class ConfigurationCoverage(ApiView):
    @extend_schema(
        tags=["coverage"],
        summary="What each webhook of a configuration intercepts on its cluster",
        parameters=[KIND_PARAMETER],
        responses={200: ConfigurationCoverageSerializer, **errors(404)},
    )
    def get(self, request: Request, cluster: str, kind: str, name: str) -> Response:
        configuration = configuration_for(request, cluster, kind, name)
        coverage = configuration_coverage_build(configuration=configuration)
        return Response(ConfigurationCoverageSerializer(coverage).data)
