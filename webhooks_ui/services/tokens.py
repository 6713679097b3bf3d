"""Per-user API tokens: created once, stored only as a hash, revoked for good."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from webhooks_ui.models import ApiToken

# Recognisable in logs and secret scanners; never part of what identifies a user.
TOKEN_PREFIX = "whd_"
DISPLAY_CHARS = 12
# last_used is a hint for people, not an audit trail: one write a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class CreatedToken:
    """A new token and its secret, which exists only in this object."""

    token: ApiToken
    secret: str


def token_hash(secret: str) -> str:
    """SHA-256 of the whole token, hex: what the database holds."""
    return hashlib.sha256(secret.encode()).hexdigest()


def api_token_create(*, user: AbstractBaseUser, name: str) -> CreatedToken:
    """Make a token for ``user``; the caller shows ``secret`` once and drops it."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            name=name.strip(),
            prefix=secret[:DISPLAY_CHARS],
            token_hash=token_hash(secret),
        )
    return CreatedToken(token, secret)


def api_token_revoke(*, user: AbstractBaseUser, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens (idempotent); DoesNotExist for others'."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token_id, user=user)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
    return token


def api_token_authenticate(*, secret: str) -> ApiToken | None:
    """The live token with this secret (user joined), or None; notes its use."""
    if not secret.startswith(TOKEN_PREFIX):
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=token_hash(secret), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used is None or now - token.last_used > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used=now)
        token.last_used = now
    return token


def api_tokens_of(*, user: AbstractBaseUser) -> QuerySet[ApiToken]:
    """``user``'s tokens, newest first, revoked ones included."""
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-pk")
