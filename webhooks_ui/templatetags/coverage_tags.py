"""Template helpers of the coverage pages: resource labels and explorer links."""

from typing import Any

from django import template
from django.urls import reverse
from django.utils.http import urlencode

from webhooks_ui.review import coverage

register = template.Library()


@register.filter
def resource_label(row: Any) -> str:
    """``v1/pods`` or ``apps/v1/deployments/scale``, as the explorer reads it."""
    return coverage.resource_label(row)


@register.simple_tag
def explorer_url(
    cluster: str, resource: Any = "", operation: str = "", namespace: str = ""
) -> str:
    """The explorer pre-filled with one question; ``resource`` is a label or a
    row (whose scope drops the namespace of a cluster-scoped one)."""
    if not isinstance(resource, str):
        if not resource.namespaced and resource.resource != "namespaces":
            namespace = ""
        resource = coverage.resource_label(resource)
    params = {"cluster": cluster, "resource": resource, "operation": operation}
    params["namespace"] = namespace or ""
    return f"{reverse('coverage-explorer')}?{urlencode(params)}"
