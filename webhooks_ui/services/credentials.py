"""Encrypting cluster credentials at rest with MultiFernet.

The first key in ``settings.CREDENTIALS_KEYS`` encrypts; every key decrypts, so
keys rotate by prepending a new one (and re-encrypting with
``credentials_reencrypt``).
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from webhooks_ui.models import Cluster


class CredentialsError(Exception):
    """Stored credentials cannot be decrypted (a key was removed or data damaged)."""


def _fernet() -> MultiFernet:
    keys = [key for key in settings.CREDENTIALS_KEYS if key]
    if not keys:
        raise ImproperlyConfigured("CREDENTIALS_KEYS is empty: cannot store secrets.")
    return MultiFernet([Fernet(key) for key in keys])


def credentials_encrypt(*, document: dict[str, Any]) -> str:
    """Encrypt a credentials document (JSON-serialisable) into an ASCII token."""
    plain = json.dumps(document, separators=(",", ":")).encode()
    return _fernet().encrypt(plain).decode("ascii")


def credentials_decrypt(*, token: str) -> dict[str, Any]:
    """Decrypt a token made by ``credentials_encrypt``; never logs the content."""
    if not token:
        return {}
    try:
        plain = _fernet().decrypt(token.encode("ascii"))
    except InvalidToken:
        raise CredentialsError(
            "Stored credentials cannot be decrypted with the configured "
            "CREDENTIALS_KEYS (was a key removed?)."
        ) from None
    return json.loads(plain)


def cluster_credentials(*, cluster: Cluster) -> dict[str, Any]:
    """The decrypted credentials document of ``cluster``."""
    return credentials_decrypt(token=cluster.credentials_encrypted)


def credentials_reencrypt() -> int:
    """Re-encrypt every cluster's credentials with the current first key.

    Run after prepending a new key, before removing the old one. Returns the
    number of clusters rewritten.
    """
    fernet = _fernet()
    count = 0
    with transaction.atomic():
        for cluster in Cluster.objects.select_for_update().only(
            "pk", "credentials_encrypted"
        ):
            if not cluster.credentials_encrypted:
                continue
            rotated = fernet.rotate(cluster.credentials_encrypted.encode("ascii"))
            cluster.credentials_encrypted = rotated.decode("ascii")
            cluster.save(update_fields=["credentials_encrypted", "updated_at"])
            count += 1
    return count
