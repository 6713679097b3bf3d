"""Per-checkout secrets for local runs, generated once into a git-ignored file.

Production sets DASHBOARD_SECRET_KEY and DASHBOARD_CREDENTIALS_KEYS in the
environment; a laptop or CI run gets keys that are random per checkout and
never committed.
"""

import json
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet


def load_or_create(path: Path) -> dict[str, str]:
    """Return the secrets stored at ``path``, creating them (mode 0600) if absent."""
    if path.exists():
        return json.loads(path.read_text())
    path.parent.mkdir(parents=True, exist_ok=True)
    values = {
        "secret_key": secrets.token_urlsafe(50),
        "credentials_key": Fernet.generate_key().decode(),
    }
    # O_EXCL: two processes starting at once must not overwrite each other's keys.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return json.loads(path.read_text())
    with os.fdopen(fd, "w") as handle:
        json.dump(values, handle)
    return values
