"""Risk findings: the fleet-wide list and one configuration's."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema

from webhooks_ui import selectors
from webhooks_ui.api.base import ApiListView
from webhooks_ui.api.permissions import api_visible_clusters
from webhooks_ui.api.schema import ERRORS, KIND_PARAMETER
from webhooks_ui.api.serializers import FindingSerializer
from webhooks_ui.api.views.configurations import configuration_for
from webhooks_ui.filters import FindingFilterSet


@extend_schema(tags=["findings"], responses={200: FindingSerializer, **ERRORS})
class FindingList(ApiListView):
    """Findings on the clusters you can see, worst first, filtered like the UI."""

    serializer_class = FindingSerializer
    filterset_class = FindingFilterSet

    def get_queryset(self):  # noqa: ANN201
        return selectors.finding_list(clusters=api_visible_clusters(self.request))


@extend_schema(
    tags=["findings"],
    parameters=[KIND_PARAMETER],
    responses={200: FindingSerializer, **ERRORS},
)
class ConfigurationFindingList(ApiListView):
    """One configuration's findings, worst first."""

    serializer_class = FindingSerializer
    filter_backends: list = []

    def get_queryset(self):  # noqa: ANN201
        configuration = configuration_for(self.request, **self.kwargs)
        return (
            configuration.findings.select_related("cluster")
            .defer("cluster__credentials_encrypted")
            .order_by("rank", "webhook", "check_id", "pk")
        )
