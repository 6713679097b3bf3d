"""``Authorization: Bearer <token>`` for scripts; browsers keep their session."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from webhooks_ui.services.tokens import api_token_authenticate


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """A per-user API token (``ApiToken``); a wrong or revoked one is a 401."""

    keyword = "Bearer"

    def authenticate(self, request: Request):  # noqa: ANN201 - DRF's (user, auth)
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None  # not ours: let the session try
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: use 'Bearer <token>'."
            )
        try:
            secret = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        token = api_token_authenticate(secret=secret)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (with this challenge) rather than 403.
        return self.keyword


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "webhooks_ui.api.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):  # noqa: ANN001, ANN201
        return {"type": "http", "scheme": "bearer"}
