"""``meta.k8s.io/v1`` Table responses, which ``kubectl get`` asks for in Accept.

The columns are those kube-apiserver prints for each stored kind, so the output
of ``kubectl get`` against the sandbox looks like the real thing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from .resources import Resource

Cell = str | int


def wants_table(accept: str) -> bool:
    return any(
        "as=Table" in part and "g=meta.k8s.io" in part for part in accept.split(",")
    )


def human_age(timestamp: str | None, now: dt.datetime | None = None) -> str:
    """``5s``, ``3m``, ``2d3h``, like apimachinery's HumanDuration."""
    if not timestamp:
        return "<unknown>"
    created = dt.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=dt.UTC
    )
    seconds = int(((now or dt.datetime.now(dt.UTC)) - created).total_seconds())
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if days < 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    if days < 730:
        return f"{days}d"
    return f"{days // 365}y"


def _column(name: str, type_: str = "string", fmt: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "type": type_,
        "format": fmt,
        "description": name,
        "priority": 0,
    }


def _ports(service: dict[str, Any]) -> str:
    ports = (service.get("spec") or {}).get("ports") or []
    text = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in ports)
    return text or "<none>"


def _slice_ports(endpoint_slice: dict[str, Any]) -> str:
    ports = endpoint_slice.get("ports") or []
    return ",".join(str(p.get("port")) for p in ports) or "<unset>"


def _slice_endpoints(endpoint_slice: dict[str, Any]) -> str:
    addresses = [
        a for e in endpoint_slice.get("endpoints") or [] for a in e.get("addresses", [])
    ]
    return ",".join(addresses[:3]) + (" + more..." if len(addresses) > 3 else "") or (
        "<unset>"
    )


_COLUMNS: dict[str, list[tuple[dict[str, Any], Callable[[dict[str, Any]], Cell]]]] = {
    "Namespace": [
        (_column("Status"), lambda o: (o.get("status") or {}).get("phase", "")),
    ],
    "Service": [
        (_column("Type"), lambda o: o["spec"].get("type", "")),
        (_column("Cluster-IP"), lambda o: o["spec"].get("clusterIP", "<none>")),
        (_column("External-IP"), lambda o: "<none>"),
        (_column("Port(s)"), _ports),
    ],
    "EndpointSlice": [
        (_column("AddressType"), lambda o: o.get("addressType", "")),
        (_column("Ports"), _slice_ports),
        (_column("Endpoints"), _slice_endpoints),
    ],
    "MutatingWebhookConfiguration": [
        (_column("Webhooks", "integer"), lambda o: len(o.get("webhooks") or [])),
    ],
    "ValidatingWebhookConfiguration": [
        (_column("Webhooks", "integer"), lambda o: len(o.get("webhooks") or [])),
    ],
}


def _partial(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.get("metadata") or {},
    }


def table(
    resource: Resource,
    objects: list[dict[str, Any]],
    *,
    list_metadata: dict[str, Any],
    include_object: str = "Metadata",
) -> dict[str, Any]:
    extra = _COLUMNS.get(resource.kind, [])
    columns = (
        [_column("Name", fmt="name")]
        + [definition for definition, _ in extra]
        + [_column("Age")]
    )
    rows = []
    for obj in objects:
        cells: list[Cell] = [obj["metadata"]["name"]]
        cells += [render(obj) for _, render in extra]
        cells.append(human_age(obj["metadata"].get("creationTimestamp")))
        row: dict[str, Any] = {"cells": cells}
        if include_object == "Object":
            row["object"] = obj
        elif include_object != "None":
            row["object"] = _partial(resource, obj)
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_metadata,
        "columnDefinitions": columns,
        "rows": rows,
    }
