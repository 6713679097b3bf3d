"""Your API tokens: list, create (the secret is in this answer only), revoke."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from webhooks_ui.api.base import ApiListView, ApiView
from webhooks_ui.api.schema import ERRORS, errors
from webhooks_ui.api.serializers import (
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    CreatedTokenSerializer,
)
from webhooks_ui.models import ApiToken
from webhooks_ui.services import tokens as tokens_service


class TokenList(ApiListView):
    serializer_class = ApiTokenSerializer
    filter_backends: list = []

    def get_queryset(self):  # noqa: ANN201
        return tokens_service.api_tokens_of(user=self.request.user)

    @extend_schema(tags=["tokens"], responses={200: ApiTokenSerializer, **ERRORS})
    def get(self, request: Request, *args, **kwargs) -> Response:  # noqa: ANN002, ANN003
        return super().get(request, *args, **kwargs)

    @extend_schema(
        tags=["tokens"],
        request=ApiTokenCreateSerializer,
        responses={201: CreatedTokenSerializer, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        form = ApiTokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        created = tokens_service.api_token_create(
            user=request.user, name=form.validated_data["name"]
        )
        body = CreatedTokenSerializer(created.token, context={"secret": created.secret})
        return Response(body.data, status=status.HTTP_201_CREATED)


class TokenDetail(ApiView):
    @extend_schema(
        tags=["tokens"],
        summary="Revoke one of your tokens (kept, inactive, for the record)",
        responses={200: ApiTokenSerializer, **errors(404)},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        try:
            token = tokens_service.api_token_revoke(
                user=request.user, token_id=token_id
            )
        except ApiToken.DoesNotExist:
            raise NotFound("No such token.") from None
        return Response(ApiTokenSerializer(token).data)
