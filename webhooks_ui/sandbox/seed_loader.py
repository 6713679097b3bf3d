"""Seed data: YAML of namespaces, services, endpointslices and webhook configurations.

Built-in seed sets live in ``seeds/<name>/``. A ``caBundle`` may be written as a
``sandbox-ca:`` placeholder that becomes a real base64 PEM certificate at load
time, so "expired" and "expires within 30 days" stay true whenever seeds load:

    caBundle: "sandbox-ca:cn=istio-ca;not-after=+20d"        # relative to today
    caBundle: "sandbox-ca:cn=old-ca;not-after=-10d"           # already expired
    caBundle: "sandbox-ca:cn=corp-ca;not-before=2025-01-01;not-after=2035-01-01"
    caBundle: "sandbox-ca:cn=svc;dns=a.example,b.example"     # a serving cert

Relative dates count from today's midnight UTC, so reloading on the same day
yields identical certificates (no spurious diffs in the dashboard).
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from pathlib import Path
from typing import Any

from webhooks_ui.domain.manifest import load_documents

from .tls import seed_ca_certificate, seed_serving_certificate

BUILTIN_SEEDS_DIR = Path(__file__).resolve().parent / "seeds"
PLACEHOLDER_PREFIX = "sandbox-ca:"
_RELATIVE = re.compile(r"^([+-])(\d+)d$")
# Create order: a namespace before what lives in it, services before slices.
_KIND_ORDER = {
    "Namespace": 0,
    "Service": 1,
    "EndpointSlice": 2,
    "MutatingWebhookConfiguration": 3,
    "ValidatingWebhookConfiguration": 4,
}


def builtin_seed_names() -> list[str]:
    return sorted(p.name for p in BUILTIN_SEEDS_DIR.iterdir() if p.is_dir())


def resolve_seed(value: str | Path) -> Path:
    """A seed directory from a path or the name of a built-in set (dev/staging/prod)."""
    path = Path(value)
    if path.is_dir():
        return path
    builtin = BUILTIN_SEEDS_DIR / str(value)
    if str(value) in builtin_seed_names():
        return builtin
    raise FileNotFoundError(
        f"no seed directory {value!r}; built-in sets: {', '.join(builtin_seed_names())}"
    )


def _date(text: str, today: dt.datetime) -> dt.datetime:
    if match := _RELATIVE.match(text):
        sign, days = match.groups()
        delta = dt.timedelta(days=int(days))
        return today + delta if sign == "+" else today - delta
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def expand_ca_placeholder(value: str, today: dt.datetime | None = None) -> str:
    """``sandbox-ca:cn=...;not-after=...`` → base64 of a PEM CA certificate."""
    today = today or dt.datetime.now(dt.UTC).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    options = dict(
        part.split("=", 1)
        for part in value.removeprefix(PLACEHOLDER_PREFIX).split(";")
        if part.strip()
    )
    not_after = _date(options.get("not-after", "+365d"), today)
    default_start = not_after - dt.timedelta(days=365)
    not_before = (
        _date(options["not-before"], today)
        if "not-before" in options
        else default_start
    )
    if "dns" in options:
        names = [name for name in options["dns"].split(",") if name]
        pem = seed_serving_certificate(options["cn"], names, not_before, not_after)
    else:
        pem = seed_ca_certificate(options["cn"], not_before, not_after)
    return base64.b64encode(pem.encode()).decode()


def _expand(value: Any, today: dt.datetime | None) -> Any:
    if isinstance(value, dict):
        return {k: _expand(v, today) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, today) for v in value]
    if isinstance(value, str) and value.startswith(PLACEHOLDER_PREFIX):
        return expand_ca_placeholder(value, today)
    return value


def load_seed_dir(path: Path, today: dt.datetime | None = None) -> list[dict[str, Any]]:
    """Objects in ``path/*.yaml`` (sorted), placeholders expanded, in create order."""
    objects: list[dict[str, Any]] = []
    for file in sorted(
        [*path.glob("*.yaml"), *path.glob("*.yml"), *path.glob("*.json")]
    ):
        for obj in load_documents(file.read_text(encoding="utf-8"), source=str(file)):
            objects.append(_expand(obj, today))
    return sort_for_create(objects)


def sort_for_create(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(objects, key=lambda o: _KIND_ORDER.get(o.get("kind", ""), 9))
