"""Minimal OpenAPI v3 documents, enough for kubectl's field-validation check.

Before ``kubectl create/replace/apply`` sends ``fieldValidation=Strict`` it looks
in /openapi/v3 for the PATCH operation of the object's GVK and checks that it
takes a ``fieldValidation`` query parameter; without that it falls back to
client-side validation against /openapi/v2 (protobuf), which we do not serve.
So each group-version document lists, per resource, the item path with a PATCH
operation tagged with its GVK and that parameter, and nothing more.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .discovery import KUBERNETES_VERSION, all_group_versions
from .resources import Resource, resources_in


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _hash(group: str, version: str) -> str:
    payload = json.dumps(document(group, version), sort_keys=True).encode()
    return hashlib.sha512(payload).hexdigest().upper()[:128]


def root() -> dict[str, Any]:
    """``/openapi/v3``: where each group-version's document lives."""
    return {
        "paths": {
            _gv_path(g, v): {
                "serverRelativeURL": f"/openapi/v3/{_gv_path(g, v)}?hash={_hash(g, v)}"
            }
            for g, v in all_group_versions()
        }
    }


def _item_path(resource: Resource) -> str:
    prefix = "/" + _gv_path(resource.group, resource.version)
    if resource.namespaced:
        return f"{prefix}/namespaces/{{namespace}}/{resource.plural}/{{name}}"
    return f"{prefix}/{resource.plural}/{{name}}"


def _patch_operation(resource: Resource) -> dict[str, Any]:
    return {
        "operationId": f"patch{resource.kind}",
        "parameters": [
            {"name": name, "in": "query", "schema": {"type": "string"}}
            for name in ("dryRun", "fieldManager", "fieldValidation")
        ],
        "responses": {"200": {"description": "OK"}},
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": {
            "group": resource.group,
            "version": resource.version,
            "kind": resource.kind,
        },
    }


def document(group: str, version: str) -> dict[str, Any]:
    """The OpenAPI v3 document of one group-version (paths only)."""
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION},
        "paths": {
            _item_path(r): {"patch": _patch_operation(r)}
            for r in resources_in(group, version)
        },
        "components": {"schemas": {}},
    }


def find_document(path: str) -> dict[str, Any] | None:
    """The document for ``/openapi/v3/<path>`` (``api/v1``, ``apis/<g>/<v>``)."""
    for group, version in all_group_versions():
        if _gv_path(group, version) == path:
            return document(group, version)
    return None
