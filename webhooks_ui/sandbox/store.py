"""The sandbox's object store: etcd plus the generic registry, in memory.

Every write bumps one cluster-wide resourceVersion and appends a watch event to a
bounded history; watchers older than the history get 410, as after an etcd
compaction. The HTTP handlers and tests (changing the cluster "out of band")
go through the same methods, so both see the same defaulting, server-set
metadata and events.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import random
import string
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.kinds import KINDS

from . import admission, resources
from .resources import Resource
from .status import (
    ApiError,
    already_exists,
    bad_request,
    conflict,
    invalid,
    namespace_not_found,
    not_found,
    stale,
    too_old_resource_version,
)

DEFAULT_HISTORY = 1000
_GENERATED_SUFFIX = string.ascii_lowercase.translate(str.maketrans("", "", "aeiouy"))


@dataclass(frozen=True)
class WatchEvent:
    """One change: ``obj`` is the new state (the last state for DELETED)."""

    resource_version: int
    type: str
    resource: Resource
    obj: dict[str, Any]
    old: dict[str, Any] | None


def now_timestamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stored_resource(api_version: str, kind: str) -> Resource:
    resource = resources.by_api_version_kind(api_version, kind)
    if resource is None or not resources.is_stored(resource):
        raise bad_request(
            f'no matches for kind "{kind}" in version "{api_version}" in the sandbox'
        )
    return resource


def _key(resource: Resource) -> tuple[str, str]:
    return (resource.group, resource.kind)


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    metadata = result.get("metadata") or {}
    for field in ("resourceVersion", "managedFields"):
        metadata.pop(field, None)
    return result


def _spec_part(obj: dict[str, Any]) -> dict[str, Any]:
    """What a generation bump looks at: everything but metadata and status."""
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


class ObjectStore:
    """Thread-safe objects by kind, namespace and name, with watch history."""

    def __init__(
        self,
        *,
        history_limit: int = DEFAULT_HISTORY,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.on_change = on_change
        self._objects: dict[tuple[str, str], dict[tuple[str, str], dict[str, Any]]] = {}
        self._rv = 0
        self._history: deque[WatchEvent] = deque(maxlen=history_limit)
        # Events with a resourceVersion <= this were forgotten (compacted).
        self._compacted_rv = 0
        self.closed = False

    # -- reads ---------------------------------------------------------------

    @property
    def resource_version(self) -> int:
        with self.lock:
            return self._rv

    @property
    def compacted_resource_version(self) -> int:
        """Watches and continue tokens from before this resourceVersion get 410."""
        with self.lock:
            return self._compacted_rv

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any]:
        """A copy of one object; raises ApiError (404) when it does not exist."""
        resource = stored_resource(api_version, kind)
        with self.lock:
            return copy.deepcopy(self._get(resource, name, namespace))

    def _get(
        self, resource: Resource, name: str, namespace: str | None
    ) -> dict[str, Any]:
        bucket = self._objects.get(_key(resource), {})
        found = bucket.get((self._namespace_of(resource, namespace), name))
        if found is None:
            raise not_found(resource, name)
        return found

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
    ) -> list[dict[str, Any]]:
        """Copies of every object of a kind (in a namespace), by namespace/name."""
        resource = stored_resource(api_version, kind)
        return self.snapshot(resource, namespace)[0]

    def snapshot(
        self, resource: Resource, namespace: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """A consistent list and the resourceVersion it was taken at."""
        with self.lock:
            bucket = self._objects.get(_key(resource), {})
            items = [
                copy.deepcopy(obj)
                for (obj_namespace, _), obj in sorted(bucket.items())
                if namespace is None or obj_namespace == namespace
            ]
            return items, self._rv

    def export(self) -> tuple[list[dict[str, Any]], int]:
        """Every object (namespaces first) and the current resourceVersion."""
        with self.lock:
            ordered = sorted(
                self._objects.items(), key=lambda item: item[0][1] != "Namespace"
            )
            items = [
                copy.deepcopy(obj)
                for _, bucket in ordered
                for _, obj in sorted(bucket.items())
            ]
            return items, self._rv

    def restore(self, objects: list[dict[str, Any]], resource_version: int) -> None:
        """Load persisted objects verbatim; watch history starts empty (410 older)."""
        with self.lock:
            for obj in objects:
                resource = stored_resource(obj["apiVersion"], obj["kind"])
                metadata = obj["metadata"]
                key = (metadata.get("namespace") or "", metadata["name"])
                self._objects.setdefault(_key(resource), {})[key] = copy.deepcopy(obj)
            self._rv = resource_version
            self._compacted_rv = resource_version

    # -- writes ----------------------------------------------------------------

    def create(
        self,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        validate: bool = True,
        namespace: str | None = None,
    ) -> dict[str, Any]:
        """Default, validate and store a new object; returns what was stored."""
        resource = stored_resource(obj.get("apiVersion", ""), obj.get("kind", ""))
        with self.lock:
            candidate = admission.default(resource, obj)
            metadata = candidate.setdefault("metadata", {})
            self._place(resource, metadata, namespace)
            if not metadata.get("name") and metadata.get("generateName"):
                metadata["name"] = metadata["generateName"] + "".join(
                    random.choices(_GENERATED_SUFFIX + "2456789", k=5)
                )
                candidate = admission.default(resource, candidate)
                metadata = candidate["metadata"]
            for field in (
                "uid",
                "resourceVersion",
                "generation",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "managedFields",
                "selfLink",
            ):
                metadata.pop(field, None)
            # The apiserver sets generation before validating (F-3).
            if resource.kind in KINDS or resource.kind == "EndpointSlice":
                metadata["generation"] = 1
            if validate:
                errors = admission.validate(resource, candidate, None)
                if errors:
                    raise invalid(resource, metadata.get("name") or "", errors)
            name = metadata["name"]
            ns = metadata.get("namespace") or ""
            if resource.namespaced and not self._namespace_exists(ns):
                raise namespace_not_found(ns)
            bucket = self._objects.setdefault(_key(resource), {})
            if (ns, name) in bucket:
                raise already_exists(resource, name)
            metadata["uid"] = str(uuid.uuid4())
            metadata["creationTimestamp"] = now_timestamp()
            if resource.kind == "Service":
                self._allocate_cluster_ip(candidate)
            candidate = _ordered(candidate)
            if dry_run:
                return copy.deepcopy(candidate)
            self._rv += 1
            candidate["metadata"]["resourceVersion"] = str(self._rv)
            bucket[(ns, name)] = candidate
            self._record("ADDED", resource, candidate, None)
            return copy.deepcopy(candidate)

    def replace(
        self,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        validate: bool = True,
        namespace: str | None = None,
    ) -> dict[str, Any]:
        """PUT semantics: a non-empty ``metadata.resourceVersion`` is a precondition."""
        resource = stored_resource(obj.get("apiVersion", ""), obj.get("kind", ""))
        with self.lock:
            metadata = obj.get("metadata") or {}
            ns = self._namespace_of(resource, metadata.get("namespace") or namespace)
            current = self._get(resource, metadata.get("name") or "", ns)
            return self._update(resource, current, obj, dry_run, validate)

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None,
        change: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        dry_run: bool = False,
        validate: bool = True,
    ) -> dict[str, Any]:
        """Apply ``change`` to the current object atomically (PATCH semantics)."""
        resource = stored_resource(api_version, kind)
        with self.lock:
            current = self._get(resource, name, namespace)
            patched = change(copy.deepcopy(current))
            if not isinstance(patched, dict):
                raise bad_request("the patched object is not a JSON object")
            patched_meta = patched.setdefault("metadata", {})
            if patched_meta.get("name") != name:
                raise bad_request(
                    f"the name of the object ({patched_meta.get('name')}) does not "
                    f"match the name on the URL ({name})"
                )
            return self._update(resource, current, patched, dry_run, validate)

    def _update(
        self,
        resource: Resource,
        current: dict[str, Any],
        obj: dict[str, Any],
        dry_run: bool,
        validate: bool,
    ) -> dict[str, Any]:
        current_meta = current["metadata"]
        name = current_meta["name"]
        body_meta = obj.get("metadata") or {}
        wanted_rv = body_meta.get("resourceVersion")
        if wanted_rv and wanted_rv != current_meta["resourceVersion"]:
            raise stale(resource, name)
        wanted_uid = body_meta.get("uid")
        if wanted_uid and wanted_uid != current_meta["uid"]:
            raise conflict(
                resource,
                name,
                f"Precondition failed: UID in precondition: {wanted_uid}, "
                f"UID in object meta: {current_meta['uid']}",
            )
        candidate = admission.default(resource, obj)
        metadata = candidate.setdefault("metadata", {})
        metadata.pop("managedFields", None)
        for field in ("uid", "creationTimestamp", "namespace", "resourceVersion"):
            if field in current_meta:
                metadata[field] = current_meta[field]
            else:
                metadata.pop(field, None)
        if "generation" in current_meta:
            bump = _spec_part(candidate) != _spec_part(current)
            if resource.kind in KINDS:
                bump = candidate.get("webhooks") != current.get("webhooks")
            metadata["generation"] = current_meta["generation"] + (1 if bump else 0)
        if resource.kind == "Service":
            for field in ("clusterIP", "clusterIPs"):
                if field in current.get("spec", {}):
                    candidate.setdefault("spec", {})[field] = current["spec"][field]
        if validate:
            errors = admission.validate(resource, candidate, current)
            if errors:
                raise invalid(resource, name, errors)
        candidate = _ordered(candidate)
        if dry_run or _comparable(candidate) == _comparable(current):
            # Like etcd's GuaranteedUpdate: an identical object is not written,
            # so nothing is bumped and no watch event fires.
            return copy.deepcopy(candidate if dry_run else current)
        self._rv += 1
        candidate["metadata"]["resourceVersion"] = str(self._rv)
        ns = current_meta.get("namespace") or ""
        self._objects[_key(resource)][(ns, name)] = candidate
        self._record("MODIFIED", resource, candidate, current)
        return copy.deepcopy(candidate)

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: dict[str, Any] | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Remove one object (a Namespace takes its contents with it)."""
        resource = stored_resource(api_version, kind)
        with self.lock:
            current = self._get(resource, name, namespace)
            self._check_preconditions(resource, current, preconditions or {})
            if dry_run:
                return copy.deepcopy(current)
            if resource.kind == "Namespace":
                for (group, kind_name), bucket in list(self._objects.items()):
                    for key in sorted(k for k in bucket if k[0] == name):
                        child = resources.by_api_version_kind(
                            bucket[key]["apiVersion"], kind_name
                        )
                        assert child is not None and child.group == group
                        self._remove(child, key)
            ns = current["metadata"].get("namespace") or ""
            return self._remove(resource, (ns, name))

    def _remove(self, resource: Resource, key: tuple[str, str]) -> dict[str, Any]:
        removed = self._objects[_key(resource)].pop(key)
        self._rv += 1
        last = copy.deepcopy(removed)
        last["metadata"]["resourceVersion"] = str(self._rv)
        self._record("DELETED", resource, last, removed)
        return copy.deepcopy(last)

    def _check_preconditions(
        self, resource: Resource, current: dict[str, Any], wanted: dict[str, Any]
    ) -> None:
        metadata = current["metadata"]
        for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            value = wanted.get(field)
            if value and value != metadata.get(field):
                raise conflict(
                    resource,
                    metadata["name"],
                    f"Precondition failed: {label} in precondition: {value}, "
                    f"{label} in object meta: {metadata.get(field)}",
                )

    def compact(self) -> None:
        """Forget the watch history: watches from any older resourceVersion get 410."""
        with self.lock:
            self._history.clear()
            self._compacted_rv = self._rv

    def close(self) -> None:
        """Wake every watcher so it can end (used when the server stops)."""
        with self.lock:
            self.closed = True
            self.changed.notify_all()

    # -- watch -----------------------------------------------------------------

    def events_after(self, resource_version: int) -> list[WatchEvent]:
        """Events newer than ``resource_version``; 410 ApiError if forgotten."""
        with self.lock:
            if resource_version < self._compacted_rv:
                raise ApiError(
                    too_old_resource_version(resource_version, self._compacted_rv + 1)
                )
            return [e for e in self._history if e.resource_version > resource_version]

    def wait_for_change(self, resource_version: int, timeout: float) -> None:
        """Block until something newer than ``resource_version`` or a timeout."""
        with self.lock:
            if self._rv <= resource_version and not self.closed:
                self.changed.wait(timeout)

    # -- helpers -----------------------------------------------------------------

    def _record(
        self,
        event_type: str,
        resource: Resource,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
    ) -> None:
        if len(self._history) == self._history.maxlen:
            self._compacted_rv = self._history[0].resource_version
        self._history.append(
            WatchEvent(
                self._rv,
                event_type,
                resource,
                copy.deepcopy(obj),
                copy.deepcopy(old) if old is not None else None,
            )
        )
        self.changed.notify_all()
        if self.on_change is not None:
            self.on_change()

    def _namespace_of(self, resource: Resource, namespace: str | None) -> str:
        if not resource.namespaced:
            return ""
        return namespace or "default"

    def _place(
        self, resource: Resource, metadata: dict[str, Any], namespace: str | None
    ) -> None:
        """Cluster-scoped objects drop metadata.namespace (F-2)."""
        if not resource.namespaced:
            metadata.pop("namespace", None)
            return
        body_namespace = metadata.get("namespace")
        if namespace and body_namespace and body_namespace != namespace:
            raise bad_request(
                "the namespace of the provided object does not match the namespace "
                "sent on the request"
            )
        metadata["namespace"] = body_namespace or namespace or "default"

    def _namespace_exists(self, name: str) -> bool:
        return (("", name)) in self._objects.get(("", "Namespace"), {})

    def _allocate_cluster_ip(self, service: dict[str, Any]) -> None:
        spec = service.setdefault("spec", {})
        if spec.get("clusterIP"):
            spec.setdefault("clusterIPs", [spec["clusterIP"]])
            return
        metadata = service["metadata"]
        digest = hashlib.sha256(
            f"{metadata['namespace']}/{metadata['name']}".encode()
        ).digest()
        address = f"10.96.{digest[0]}.{digest[1] % 254 + 1}"
        spec["clusterIP"] = address
        spec["clusterIPs"] = [address]


def _ordered(obj: dict[str, Any]) -> dict[str, Any]:
    """kind, apiVersion and metadata first, as the apiserver serialises them."""
    head = {k: obj[k] for k in ("kind", "apiVersion", "metadata") if k in obj}
    return head | {k: v for k, v in obj.items() if k not in head}
