"""What every API view shares: authentication, the error shape, pagination and
the FilterSets bound to the caller's visible clusters."""

from __future__ import annotations

from typing import Any

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions, generics
from rest_framework.authentication import SessionAuthentication
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webhooks_ui.api.authentication import BearerTokenAuthentication
from webhooks_ui.api.errors import exception_handler
from webhooks_ui.permissions import visible_clusters

# Bearer first: its challenge makes an unauthenticated request a 401, not a 403.
AUTHENTICATION = [BearerTokenAuthentication, SessionAuthentication]


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class VisibleClustersFilterBackend(DjangoFilterBackend):
    """Our FilterSets take the caller's clusters (choices of cluster/environment)."""

    def get_filterset_kwargs(self, request: Request, queryset: Any, view: Any) -> dict:
        kwargs = super().get_filterset_kwargs(request, queryset, view)
        kwargs["clusters"] = visible_clusters(request.user)
        return kwargs


class ApiMixin:
    authentication_classes = AUTHENTICATION
    permission_classes = [IsAuthenticated]

    def get_exception_handler(self):  # noqa: ANN201 - DRF hook
        return exception_handler


class ApiView(ApiMixin, APIView):
    """A single-object or action endpoint."""


class ApiListView(ApiMixin, generics.ListAPIView):
    """A paginated list, filtered by a FilterSet shared with the UI."""

    pagination_class = Pagination
    filter_backends = [VisibleClustersFilterBackend]


class NotFoundView(ApiView):
    """Unknown paths under /api/v1/ answer in the error shape, not with HTML."""

    schema = None

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise exceptions.NotFound("No such API endpoint.")

    post = put = patch = delete = get
