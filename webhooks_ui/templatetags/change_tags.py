"""Open change requests next to what they change (configuration pages)."""

from typing import Any

from django import template

from webhooks_ui.models import WebhookConfiguration
from webhooks_ui.review.changes import changes_for_configuration

register = template.Library()


@register.inclusion_tag("change_open_list.html")
def open_changes(configuration: WebhookConfiguration) -> dict[str, Any]:
    """Proposed, approved, stale or failed changes of this configuration, so a
    reviewer sees them and an editor does not start a second one unaware."""
    changes = changes_for_configuration(
        cluster=configuration.cluster,
        kind=configuration.kind,
        name=configuration.name,
    )
    return {"changes": list(changes[:10])}
