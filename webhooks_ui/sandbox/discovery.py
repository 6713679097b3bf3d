"""Discovery documents: /version, /api, /apis and per group-version resource lists.

Both shapes are served: the legacy APIGroupList/APIResourceList, and the
aggregated ``apidiscovery.k8s.io/v2`` APIGroupDiscoveryList that kubectl and
client-go ask for first (one request instead of one per group-version).
"""

from __future__ import annotations

from typing import Any

from .resources import RESOURCES, Resource, Subresource, group_versions, resources_in

KUBERNETES_VERSION = "v1.33.4"
AGGREGATED_MEDIA_TYPE = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)


def wants_aggregated(accept: str) -> bool:
    """True when the client lists the v2 aggregated discovery media type."""
    for part in accept.split(","):
        params = {p.strip() for p in part.split(";")[1:]}
        if {"g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"} <= params:
            return True
    return False


def version_info() -> dict[str, str]:
    major, minor, _ = KUBERNETES_VERSION.lstrip("v").split(".")
    return {
        "major": major,
        "minor": minor,
        "emulationMajor": major,
        "emulationMinor": minor,
        "minCompatibilityMajor": major,
        "minCompatibilityMinor": str(int(minor) - 1),
        "gitVersion": KUBERNETES_VERSION,
        "gitCommit": "b5d5a0ad8f2a9b1c6c1e4a8f0c86c7f93d1b0e2a",
        "gitTreeState": "clean",
        "buildDate": "2025-08-12T10:04:18Z",
        "goVersion": "go1.24.5",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def core_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
        ],
    }


def _group(name: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def group_list() -> dict[str, Any]:
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [_group(name, vs) for name, vs in group_versions().items()],
    }


def api_group(name: str) -> dict[str, Any] | None:
    versions = group_versions().get(name)
    if versions is None:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1"} | _group(name, versions)


def _legacy_entries(resource: Resource) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {
        "name": resource.plural,
        "singularName": resource.singular,
        "namespaced": resource.namespaced,
        "kind": resource.kind,
        "verbs": list(resource.verbs),
    }
    if resource.short_names:
        entry["shortNames"] = list(resource.short_names)
    if resource.categories:
        entry["categories"] = list(resource.categories)
    entries = [entry]
    for sub in resource.subresources:
        sub_entry: dict[str, Any] = {
            "name": f"{resource.plural}/{sub.name}",
            "singularName": "",
            "namespaced": resource.namespaced,
        }
        if sub.kind_group is not None:
            sub_entry["group"] = sub.kind_group
            sub_entry["version"] = sub.kind_version
        sub_entry |= {"kind": sub.kind, "verbs": list(sub.verbs)}
        entries.append(sub_entry)
    return entries


def resource_list(group: str, version: str) -> dict[str, Any] | None:
    served = resources_in(group, version)
    if not served:
        return None
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": [e for r in served for e in _legacy_entries(r)],
    }


def _response_kind(sub: Subresource) -> dict[str, str]:
    return {
        "group": sub.kind_group or "",
        "version": sub.kind_version or "",
        "kind": sub.kind,
    }


def _aggregated_resource(resource: Resource) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": resource.plural,
        "responseKind": {"group": "", "version": "", "kind": resource.kind},
        "scope": "Namespaced" if resource.namespaced else "Cluster",
        "singularResource": resource.singular,
        "verbs": list(resource.verbs),
    }
    if resource.short_names:
        entry["shortNames"] = list(resource.short_names)
    if resource.categories:
        entry["categories"] = list(resource.categories)
    if resource.subresources:
        entry["subresources"] = [
            {
                "subresource": sub.name,
                "responseKind": _response_kind(sub),
                "verbs": list(sub.verbs),
            }
            for sub in resource.subresources
        ]
    return entry


def aggregated(core: bool) -> dict[str, Any]:
    """The v2 APIGroupDiscoveryList for /api (core) or /apis (every named group)."""
    if core:
        groups = {"": ["v1"]}
    else:
        groups = group_versions()
    items = []
    for name, versions in groups.items():
        metadata: dict[str, Any] = {"creationTimestamp": None}
        if name:
            metadata["name"] = name
        items.append(
            {
                "metadata": metadata,
                "versions": [
                    {
                        "version": version,
                        "resources": [
                            _aggregated_resource(r) for r in resources_in(name, version)
                        ],
                        "freshness": "Current",
                    }
                    for version in versions
                ],
            }
        )
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    }


def all_group_versions() -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for resource in RESOURCES:
        pair = (resource.group, resource.version)
        if pair not in seen:
            seen.append(pair)
    return seen
