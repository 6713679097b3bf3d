"""Reading what sync needs: both webhook kinds, discovery, namespaces, services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from webhooks_ui.domain.kinds import API_VERSION_V1, GROUP, RESOURCE_BY_KIND, VERSION_V1
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.errors import Gone, MalformedResponse

MAX_LIST_RESTARTS = 3


@dataclass
class ListResult:
    """All items of a (paginated) list and the list's resourceVersion."""

    items: list[dict[str, Any]]
    resource_version: str
    pages: int = 1


@dataclass
class Discovery:
    """Flattened discovery: one row per resource or subresource and version."""

    resources: list[dict[str, Any]] = field(default_factory=list)


def configurations_path(kind: str) -> str:
    return f"/apis/{GROUP}/{VERSION_V1}/{RESOURCE_BY_KIND[kind]}"


def list_all(
    client: KubeClient,
    path: str,
    *,
    page_size: int,
    query: list[tuple[str, str]] | None = None,
) -> ListResult:
    """Every item of ``path``, following continue tokens.

    A 410 mid-pagination (the continue token expired) restarts the list from the
    first page, so the result is always one consistent snapshot.
    """
    for _attempt in range(MAX_LIST_RESTARTS + 1):
        try:
            return _list_pages(client, path, page_size=page_size, query=query or [])
        except Gone:
            continue
    raise Gone(
        f"{client.where}: the list of {path} kept expiring during pagination "
        f"({MAX_LIST_RESTARTS + 1} attempts)."
    )


def _list_pages(
    client: KubeClient, path: str, *, page_size: int, query: list[tuple[str, str]]
) -> ListResult:
    items: list[dict[str, Any]] = []
    token = ""
    pages = 0
    resource_version = ""
    while True:
        params = [*query, ("limit", page_size)]
        if token:
            params.append(("continue", token))
        page = client.request("GET", path, query=params)
        pages += 1
        page_items = page.get("items")
        metadata = page.get("metadata")
        if not isinstance(page_items, list) or not isinstance(metadata, dict):
            raise MalformedResponse(
                f"{client.where}: the list answer for {path} has no items/metadata."
            )
        items.extend(page_items)
        resource_version = str(metadata.get("resourceVersion") or resource_version)
        token = metadata.get("continue") or ""
        if not token:
            return ListResult(items, resource_version, pages)


def list_configurations(client: KubeClient, kind: str, *, page_size: int) -> ListResult:
    """Every configuration of ``kind``, each with apiVersion/kind as a GET serves it.

    List items come without apiVersion/kind; we put them first so a stored
    object reads like ``kubectl get -o json``.
    """
    result = list_all(client, configurations_path(kind), page_size=page_size)
    for index, item in enumerate(result.items):
        if not isinstance(item, dict) or not isinstance(item.get("metadata"), dict):
            raise MalformedResponse(
                f"{client.where}: a {kind} in the list has no metadata."
            )
        if "apiVersion" not in item or "kind" not in item:
            result.items[index] = {"apiVersion": API_VERSION_V1, "kind": kind} | item
    return result


def server_version(client: KubeClient) -> str:
    """The server's gitVersion (``v1.33.1``)."""
    data = client.request("GET", "/version")
    return str(data.get("gitVersion") or "")


AGGREGATED = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)


def discover(client: KubeClient) -> Discovery:
    """Core and group discovery, every served version, subresources included.

    Aggregated discovery (Kubernetes 1.26+) answers in two requests; older
    servers answer the legacy documents, read one group-version at a time.
    """
    discovery = Discovery()
    core = client.request("GET", "/api", accept=AGGREGATED)
    if core.get("kind") == "APIGroupDiscoveryList":
        groups = client.request("GET", "/apis", accept=AGGREGATED)
        for document in (core, groups):
            if document.get("kind") != "APIGroupDiscoveryList":
                raise MalformedResponse(
                    f"{client.where}: /apis answered a different discovery format."
                )
            _add_aggregated(discovery, document)
        return discovery
    for version in core.get("versions") or []:
        _add_resources(client, discovery, "", version, preferred=version == "v1")
    groups = client.request("GET", "/apis")
    for group in groups.get("groups") or []:
        name = group.get("name") or ""
        preferred = (group.get("preferredVersion") or {}).get("groupVersion")
        for version in group.get("versions") or []:
            group_version = version.get("groupVersion") or ""
            _add_resources(
                client,
                discovery,
                name,
                version.get("version") or "",
                preferred=group_version == preferred,
            )
    return discovery


def _add_aggregated(discovery: Discovery, document: dict[str, Any]) -> None:
    for group in document.get("items") or []:
        name = str((group.get("metadata") or {}).get("name") or "")
        # Versions come in preference order: the first is preferred.
        for index, version in enumerate(group.get("versions") or []):
            for resource in version.get("resources") or []:
                namespaced = resource.get("scope") == "Namespaced"
                base = {
                    "group": name,
                    "version": str(version.get("version") or ""),
                    "resource": str(resource.get("resource") or ""),
                    "namespaced": namespaced,
                    "preferred": index == 0,
                }
                discovery.resources.append(
                    base
                    | {
                        "subresource": "",
                        "kind": _response_kind(resource),
                        "verbs": sorted(resource.get("verbs") or []),
                    }
                )
                for sub in resource.get("subresources") or []:
                    discovery.resources.append(
                        base
                        | {
                            "subresource": str(sub.get("subresource") or ""),
                            "kind": _response_kind(sub),
                            "verbs": sorted(sub.get("verbs") or []),
                        }
                    )


def _response_kind(entry: dict[str, Any]) -> str:
    return str((entry.get("responseKind") or {}).get("kind") or "")


def _add_resources(
    client: KubeClient,
    discovery: Discovery,
    group: str,
    version: str,
    *,
    preferred: bool,
) -> None:
    path = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    data = client.request("GET", path)
    for resource in data.get("resources") or []:
        full = str(resource.get("name") or "")
        if not full:
            continue
        name, _, subresource = full.partition("/")
        discovery.resources.append(
            {
                "group": group,
                "version": version,
                "resource": name,
                "subresource": subresource,
                "kind": str(resource.get("kind") or ""),
                "namespaced": bool(resource.get("namespaced")),
                "verbs": sorted(resource.get("verbs") or []),
                "preferred": preferred,
            }
        )


def list_namespaces(client: KubeClient, *, page_size: int) -> ListResult:
    return list_all(client, "/api/v1/namespaces", page_size=page_size)


def list_services(client: KubeClient, namespace: str, *, page_size: int) -> ListResult:
    return list_all(
        client, f"/api/v1/namespaces/{quote(namespace)}/services", page_size=page_size
    )


def list_endpoint_slices(
    client: KubeClient, namespace: str, *, page_size: int
) -> ListResult:
    path = f"/apis/discovery.k8s.io/v1/namespaces/{quote(namespace)}/endpointslices"
    return list_all(client, path, page_size=page_size)
