"""What a cluster serves: discovery data as ``ApiResource`` rows, and equivalence.

Two inputs are accepted:

* the legacy discovery shapes: an ``APIResourceList`` (``/api/v1``,
  ``/apis/<group>/<version>``), a list of them, or the corpus'
  ``DiscoverySnapshot`` wrapper, whose ``apis`` (an ``APIGroupList``) says
  which version of each group is preferred and whose ``resourceLists`` hold
  the lists keyed by groupVersion;
* plain rows ``{group, version, resource, subresource, kind, namespaced,
  verbs, preferred}`` as our database stores them per cluster.

Equivalence (``equivalent_resources``) mirrors kube-apiserver's
equivalent-resource registry, which keys resources by their storage: every
served version of a group's resource is equivalent, and so are the few
resources the storage factory stores together across groups
(``CROSS_GROUP_EQUIVALENTS``). Matching uses it for ``matchPolicy:
Equivalent`` (M-7).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"
# Admission operations in the order the UI lists them.
OPERATION_ORDER = (CREATE, UPDATE, DELETE, CONNECT)

# Discovery verbs that reach admission, and as which operation.
_VERB_OPERATIONS = {
    "create": CREATE,
    "update": UPDATE,
    "patch": UPDATE,
    "delete": DELETE,
    "deletecollection": DELETE,
}
# Connect-style subresources (pods/exec, pods/attach, pods/portforward,
# pods/proxy, services/proxy, nodes/proxy): their handlers admit every HTTP
# method as CONNECT with an *Options object, whatever verbs discovery lists.
CONNECT_SUBRESOURCES = frozenset({"exec", "attach", "portforward", "proxy"})

# Resources kube-apiserver's storage factory stores together across groups
# ("cohabitating resources", pkg/kubeapiserver/default_storage_factory_builder.go).
# The equivalent-resource registry keys by storage prefix, so a rule naming one
# matches requests for the other under matchPolicy Equivalent. Kept to the
# pairs a real cluster can serve: events in core and events.k8s.io (both
# served today), and the extensions/v1beta1 copies that clusters before 1.16
# (workloads, network policies) and 1.22 (ingresses) still serve.
CROSS_GROUP_EQUIVALENTS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("", "events"), ("events.k8s.io", "events")),
    (("apps", "deployments"), ("extensions", "deployments")),
    (("apps", "daemonsets"), ("extensions", "daemonsets")),
    (("apps", "replicasets"), ("extensions", "replicasets")),
    (("networking.k8s.io", "networkpolicies"), ("extensions", "networkpolicies")),
    (("networking.k8s.io", "ingresses"), ("extensions", "ingresses")),
)
_STORAGE_KEY = {
    member: members[0] for members in CROSS_GROUP_EQUIVALENTS for member in members
}


@dataclass(frozen=True)
class ApiResource:
    """One served resource or subresource in one group-version."""

    group: str
    version: str
    resource: str
    subresource: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ()
    preferred: bool = False
    # The kind's group/version when it lives elsewhere (deployments/scale →
    # autoscaling/v1 Scale); None means the resource's own group/version.
    kind_group: str | None = None
    kind_version: str | None = None

    @property
    def name(self) -> str:
        """``pods`` or ``pods/exec``, as discovery spells it."""
        return (
            f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        )

    @property
    def gvr(self) -> tuple[str, str, str]:
        return (self.group, self.version, self.resource)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.group, self.version, self.resource, self.subresource)

    @property
    def gvk(self) -> tuple[str, str, str]:
        group = self.group if self.kind_group is None else self.kind_group
        version = self.version if self.kind_version is None else self.kind_version
        return (group, version, self.kind)

    @property
    def operations(self) -> tuple[str, ...]:
        """Admission operations a request on this resource can carry."""
        return operations_for(self.subresource, self.verbs)


def operations_for(subresource: str, verbs: Iterable[str]) -> tuple[str, ...]:
    if subresource in CONNECT_SUBRESOURCES:
        return (CONNECT,)
    found = {_VERB_OPERATIONS[verb] for verb in verbs if verb in _VERB_OPERATIONS}
    return tuple(op for op in OPERATION_ORDER if op in found)


# --- parsing ---------------------------------------------------------------------


def parse_discovery(data: Any) -> list[ApiResource]:
    """Rows from any accepted discovery shape (see the module docstring).

    Raises ValueError for data of none of those shapes (a programmer error:
    discovery comes from our own sync, not from users).
    """
    if isinstance(data, Mapping):
        if isinstance(data.get("resourceLists"), Mapping):
            return _from_snapshot(data)
        if isinstance(data.get("resources"), list) and "groupVersion" not in data:
            return resources_from_rows(data["resources"])
        if data.get("kind") == "APIResourceList" or "groupVersion" in data:
            return resources_from_resource_list(data)
    if isinstance(data, list):
        if all(isinstance(item, Mapping) and "groupVersion" in item for item in data):
            return _with_parent_scope(
                row for item in data for row in _resource_list_rows(item, None)
            )
        return resources_from_rows(data)
    raise ValueError("not a discovery snapshot, APIResourceList or list of rows")


def resources_from_resource_list(
    resource_list: Mapping[str, Any], *, preferred: bool | None = None
) -> list[ApiResource]:
    """Rows of one ``APIResourceList``; ``preferred`` marks its version."""
    return _with_parent_scope(_resource_list_rows(resource_list, preferred))


def resources_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[ApiResource]:
    """Rows as stored in our database (or the snapshot's flat ``resources``).

    A row without ``preferred`` is marked preferred when it is in the first
    version listed for its group, the order discovery uses.
    """
    rows = [row for row in rows if isinstance(row, Mapping)]
    first_version: dict[str, str] = {}
    for row in rows:
        first_version.setdefault(str(row.get("group") or ""), str(row.get("version")))
    result = []
    for row in rows:
        group = str(row.get("group") or "")
        version = str(row.get("version") or "")
        resource = str(row.get("resource") or "")
        subresource = str(row.get("subresource") or "")
        if not subresource and "/" in resource:
            resource, _, subresource = resource.partition("/")
        preferred = row.get("preferred")
        if preferred is None:
            preferred = first_version.get(group) == version
        result.append(
            ApiResource(
                group=group,
                version=version,
                resource=resource,
                subresource=subresource,
                kind=str(row.get("kind") or ""),
                namespaced=bool(row.get("namespaced")),
                verbs=tuple(str(v) for v in row.get("verbs") or ()),
                preferred=bool(preferred),
                kind_group=_optional(row.get("kindGroup", row.get("kind_group"))),
                kind_version=_optional(row.get("kindVersion", row.get("kind_version"))),
            )
        )
    return _with_parent_scope(result)


def _from_snapshot(snapshot: Mapping[str, Any]) -> list[ApiResource]:
    preferred = {"v1"}  # the core group serves only v1
    apis = snapshot.get("apis")
    groups = apis.get("groups") if isinstance(apis, Mapping) else None
    for group in groups or ():
        chosen = (group.get("preferredVersion") or {}).get("groupVersion")
        if chosen is None and group.get("versions"):
            chosen = group["versions"][0].get("groupVersion")
        if chosen:
            preferred.add(chosen)
    rows: list[ApiResource] = []
    for group_version, resource_list in snapshot["resourceLists"].items():
        if isinstance(resource_list, Mapping):
            resource_list = {"groupVersion": group_version, **resource_list}
            rows.extend(_resource_list_rows(resource_list, group_version in preferred))
    return _with_parent_scope(rows)


def _resource_list_rows(
    resource_list: Mapping[str, Any], preferred: bool | None
) -> Iterable[ApiResource]:
    group_version = str(resource_list.get("groupVersion") or "")
    group, _, version = group_version.rpartition("/")
    if preferred is None:
        preferred = True
    for entry in resource_list.get("resources") or ():
        if not isinstance(entry, Mapping):
            continue
        resource, _, subresource = str(entry.get("name") or "").partition("/")
        yield ApiResource(
            group=group,
            version=version,
            resource=resource,
            subresource=subresource,
            kind=str(entry.get("kind") or ""),
            namespaced=bool(entry.get("namespaced")),
            verbs=tuple(str(v) for v in entry.get("verbs") or ()),
            preferred=preferred,
            # In APIResourceList, "group"/"version" on an entry name the kind's.
            kind_group=_optional(entry.get("group")),
            kind_version=_optional(entry.get("version")),
        )


def _with_parent_scope(rows: Iterable[ApiResource]) -> list[ApiResource]:
    """Subresources take their parent's scope (the namespace attribute does)."""
    rows = list(rows)
    parents = {
        (row.group, row.version, row.resource): row.namespaced
        for row in rows
        if not row.subresource
    }
    result = []
    for row in rows:
        namespaced = parents.get(row.gvr, row.namespaced)
        if row.subresource and namespaced != row.namespaced:
            row = ApiResource(
                row.group,
                row.version,
                row.resource,
                row.subresource,
                row.kind,
                namespaced,
                row.verbs,
                row.preferred,
                row.kind_group,
                row.kind_version,
            )
        result.append(row)
    return result


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


# --- the indexed table and equivalence --------------------------------------------


@dataclass(frozen=True)
class ResourceTable:
    """Rows indexed for matching and coverage; build once per cluster."""

    rows: tuple[ApiResource, ...]
    by_key: Mapping[tuple[str, str, str, str], ApiResource] = field(repr=False)
    by_group: Mapping[str, tuple[ApiResource, ...]] = field(repr=False)
    # Equivalents of each row (itself excluded), server order, same subresource.
    equivalents: Mapping[tuple[str, str, str, str], tuple[ApiResource, ...]] = field(
        repr=False
    )

    @classmethod
    def build(cls, resources: Iterable[ApiResource]) -> ResourceTable:
        rows = tuple(resources)
        by_key = {row.key: row for row in rows}
        by_group: dict[str, list[ApiResource]] = {}
        storage: dict[tuple[str, str, str], list[ApiResource]] = {}
        for row in rows:
            by_group.setdefault(row.group, []).append(row)
            storage.setdefault(_storage_key(row), []).append(row)
        equivalents = {}
        for members in storage.values():
            ordered = _server_order(members)
            for row in members:
                equivalents[row.key] = tuple(
                    other for other in ordered if other.key != row.key
                )
        return cls(
            rows=rows,
            by_key=by_key,
            by_group={group: tuple(items) for group, items in by_group.items()},
            equivalents=equivalents,
        )


def as_table(resources: Sequence[ApiResource] | ResourceTable) -> ResourceTable:
    if isinstance(resources, ResourceTable):
        return resources
    return ResourceTable.build(resources)


def equivalent_resources(
    table: Sequence[ApiResource] | ResourceTable,
    group: str,
    version: str,
    resource: str,
    subresource: str = "",
) -> list[dict[str, Any]]:
    """Equivalents of a resource in matching's ``equivalent_resources`` shape.

    The resource itself is left out (matching tries it first anyway); the
    rest come in server order: the resource's own group first with the
    preferred version leading, then cross-group equivalents. For a
    subresource only equivalents serving that subresource are listed (M-7).
    """
    table = as_table(table)
    key = (group, version, resource, subresource)
    row = table.by_key.get(key)
    if row is not None:
        rows = table.equivalents.get(key, ())
    else:
        # Not served in this version: still list what shares its storage.
        probe = ApiResource(group, version, resource, subresource, "", False)
        storage = _storage_key(probe)
        rows = _server_order(
            [r for r in table.rows if _storage_key(r) == storage and r.key != key]
        )
    return [equivalent_entry(other) for other in rows]


def equivalent_entry(row: ApiResource) -> dict[str, Any]:
    kind_group, kind_version, kind = row.gvk
    return {
        "group": row.group,
        "version": row.version,
        "resource": row.resource,
        "subresource": row.subresource,
        "kind": {"group": kind_group, "version": kind_version, "kind": kind},
    }


def _storage_key(row: ApiResource) -> tuple[str, str, str]:
    group, resource = _STORAGE_KEY.get(
        (row.group, row.resource), (row.group, row.resource)
    )
    return (group, resource, row.subresource)


def _server_order(rows: Sequence[ApiResource]) -> list[ApiResource]:
    """The storage group first, preferred version first, else discovery order."""
    if not rows:
        return []
    home = _STORAGE_KEY.get((rows[0].group, rows[0].resource), (rows[0].group,))[0]
    position = {id(row): index for index, row in enumerate(rows)}
    return sorted(
        rows,
        key=lambda row: (row.group != home, not row.preferred, position[id(row)]),
    )
