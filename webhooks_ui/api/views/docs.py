"""The API's documentation page, rendered on the server from the OpenAPI schema.

Swagger UI and Redoc would load scripts from a CDN, which the CSP forbids;
this page needs no script at all.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import IsAuthenticated

from webhooks_ui.api.base import ApiMixin

_METHODS = ("get", "post", "put", "patch", "delete")


class SchemaView(ApiMixin, SpectacularAPIView):
    """The OpenAPI document (YAML; ``?format=json`` for JSON), for signed-in
    users and tokens like every other endpoint."""

    permission_classes = [IsAuthenticated]

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
        return super().get(request, *args, **kwargs)


@login_required
@require_GET
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    context = {
        "info": schema.get("info", {}),
        "operations": _operations(schema),
        "components": _components(schema),
    }
    return render(request, "api_docs.html", context)


def _operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    operations = []
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {})
            operations.append(
                {
                    "anchor": operation.get("operationId", ""),
                    "method": method.upper(),
                    "path": path,
                    "summary": operation.get("summary", ""),
                    "description": operation.get("description", ""),
                    "tags": operation.get("tags", []),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _type(p.get("schema", {})),
                            "description": p.get("description", ""),
                        }
                        for p in operation.get("parameters", [])
                    ],
                    "request": [
                        {"media_type": media, "type": _type(c.get("schema", {}))}
                        for media, c in body.items()
                    ],
                    "responses": [
                        {
                            "code": code,
                            "description": r.get("description", ""),
                            "type": _type(
                                r.get("content", {})
                                .get("application/json", {})
                                .get("schema", {})
                            ),
                        }
                        for code, r in operation.get("responses", {}).items()
                    ],
                }
            )
    return operations


def _components(schema: dict[str, Any]) -> list[dict[str, Any]]:
    components = schema.get("components", {}).get("schemas", {})
    return [
        {
            "name": name,
            "description": component.get("description", ""),
            "fields": [
                {
                    "name": field,
                    "type": _type(spec),
                    "required": field in component.get("required", []),
                    "description": spec.get("description", ""),
                }
                for field, spec in component.get("properties", {}).items()
            ],
        }
        for name, component in sorted(components.items())
    ]


def _type(spec: dict[str, Any]) -> str:
    """A short, readable type: ``Cluster``, ``array of Change``, ``string``."""
    if "$ref" in spec:
        return spec["$ref"].rsplit("/", 1)[-1]
    if "allOf" in spec:
        return " & ".join(_type(s) for s in spec["allOf"])
    if "oneOf" in spec:
        return " | ".join(_type(s) for s in spec["oneOf"])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"array of {_type(spec.get('items', {}))}"
    if "enum" in spec:
        return f"{kind} ({', '.join(str(v) for v in spec['enum'] if v is not None)})"
    if spec.get("format"):
        return f"{kind} ({spec['format']})"
    return str(kind) + (" or null" if spec.get("nullable") else "")
