"""Small presentation helpers: status words to badge styles, values to text."""

import json
import re
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from webhooks_ui.converters import SLUG_BY_KIND

register = template.Library()

# Every status is shown as a word too; colour only reinforces it.
_BADGES = {
    "succeeded": "text-bg-success",
    "ready": "text-bg-success",
    "valid": "text-bg-success",
    "identical": "text-bg-success",
    "ok": "text-bg-success",
    "running": "text-bg-info",
    "queued": "text-bg-info",
    "info": "text-bg-info",
    "present": "text-bg-secondary",
    "absent": "text-bg-light border",
    "failed": "text-bg-danger",
    "danger": "text-bg-danger",
    "expired": "text-bg-danger",
    "missing": "text-bg-danger",
    "invalid": "text-bg-danger",
    "different": "text-bg-warning",
    "warn": "text-bg-warning",
    "expiring": "text-bg-warning",
    "no-endpoints": "text-bg-danger",
    "not_yet_valid": "text-bg-warning",
}


@register.filter
def badge(status: str) -> str:
    """Bootstrap badge classes for a status word."""
    return _BADGES.get(str(status), "text-bg-secondary")


@register.filter
def kind_slug(kind: str) -> str:
    return SLUG_BY_KIND.get(kind, kind)


@register.filter
def short_kind(kind: str) -> str:
    return "Mutating" if kind == "MutatingWebhookConfiguration" else "Validating"


@register.filter
def as_text(value: Any) -> str:
    """A field value as compact text: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


@register.filter
def get_item(mapping: dict, key: Any) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def in_set(value: Any, collection: Any) -> bool:
    return value in collection


@register.simple_tag
def query_with(request: Any, **changes: Any) -> str:
    """The current query string with some parameters replaced (filters kept)."""
    params = request.GET.copy()
    for key, value in changes.items():
        params[key] = value
    return params.urlencode()


_CELL_LABELS = {"present": "only here"}
# Rows whose sub-fields get rows of their own: their value would repeat them.
_CONTAINER_PATHS = {"clientConfig", "clientConfig.service", "rules"}


@register.filter
def cell_label(state: str) -> str:
    return _CELL_LABELS.get(state, state)


@register.filter
def field_value(explanation: Any) -> str:
    """A field's value for the explanation table: containers summarised."""
    if explanation.path in _CONTAINER_PATHS:
        return ""
    value = explanation.value
    if value is None:
        return "none"
    text = as_text(value)
    if explanation.path.endswith("caBundle") and len(text) > 48:
        return f"{text[:48]}… ({len(text)} characters)"
    return text


_SEVERITY_BADGES = {
    "critical": "text-bg-danger",
    "warning": "text-bg-warning",
    "info": "text-bg-info",
}


@register.filter
def severity_badge(severity: str) -> str:
    return _SEVERITY_BADGES.get(str(severity), "text-bg-secondary")


_WEBHOOK_INDEX = re.compile(r"^webhooks\[(\d+)\]")


@register.filter
def finding_anchor(field_path: str) -> str:
    """The configuration page anchor (``webhook-<i>``) a finding's field is in."""
    match = _WEBHOOK_INDEX.match(field_path or "")
    return f"webhook-{match[1]}" if match else ""


@register.filter
def ago(moment: Any) -> str:
    """ "just now" under a minute, else "5 minutes ago" (Django's timesince)."""
    if not moment:
        return ""
    if (timezone.now() - moment).total_seconds() < 60:
        return "just now"
    return f"{timesince(moment)} ago"
