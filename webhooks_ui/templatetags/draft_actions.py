"""Edit / Delete / Clone / New buttons, shown only to users who may use them.

Inclusion tags, so the pages that show them need no change to their views.
"""

from typing import Any

from django import template

from webhooks_ui.models import Cluster, WebhookConfiguration
from webhooks_ui.permissions import Role, clusters_with_role, has_role

register = template.Library()


@register.inclusion_tag("draft_actions_configuration.html", takes_context=True)
def configuration_draft_actions(
    context: template.Context, configuration: WebhookConfiguration
) -> dict[str, Any]:
    """Edit, Delete… and Clone to… for editors of the configuration's cluster."""
    user = context["request"].user
    can_edit = not configuration.is_deleted and has_role(
        user, configuration.cluster, Role.EDITOR
    )
    targets = Cluster.objects.none()
    if not configuration.is_deleted:
        targets = (
            Cluster.objects.filter(pk__in=clusters_with_role(user, Role.EDITOR))
            .only("pk", "name", "display_name")
            .order_by("name")
        )
    # Another cluster first: cloning onto the same one needs a new name.
    ordered = sorted(targets, key=lambda c: c.pk == configuration.cluster_id)
    return {
        "configuration": configuration,
        "can_edit": can_edit,
        "targets": ordered,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("draft_actions_cluster.html", takes_context=True)
def cluster_draft_actions(
    context: template.Context, cluster: Cluster
) -> dict[str, Any]:
    """New mutating / New validating for editors of ``cluster``."""
    return {
        "cluster": cluster,
        "can_edit": has_role(context["request"].user, cluster, Role.EDITOR),
        "csrf_token": context.get("csrf_token"),
    }
