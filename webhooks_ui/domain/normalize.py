"""One canonical form of a webhook configuration, for comparing and fingerprinting.

Two objects that kube-apiserver would store the same way must normalise to the
same dict: the manifest in Git and the object read back from a cluster, or the
same configuration on two clusters. So: defaults applied (D-1..D-4),
server-managed metadata and ``status`` dropped, values the API server would
not store (JSON null, an empty ``omitempty`` field) dropped, and optionally
every webhook's caBundle dropped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from webhooks_ui.domain.defaulting import fill_defaults_in_place, json_copy
from webhooks_ui.domain.ownership import ca_bundle_injected

# metadata fields the API server writes and a user cannot meaningfully set:
# identity and bookkeeping of the stored copy (uid, resourceVersion,
# generation, creationTimestamp, selfLink), who-wrote-what (managedFields),
# and graceful-deletion state (deletionTimestamp, deletionGracePeriodSeconds).
# They differ between clusters and between every read, so they would make
# identical configurations look different. ``metadata.namespace`` is here too:
# both kinds are cluster-scoped and the server silently drops it (F-2, N-6).
# ownerReferences and finalizers stay: they are intent, set by a client.
SERVER_MANAGED_METADATA = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "namespace",
)
# Top-level fields that are not part of the desired state.
SERVER_MANAGED_TOP_LEVEL = ("status",)
# Annotations that are a client's bookkeeping copy of the object, not intent:
# kubectl's client-side apply keeps the whole last-applied body here, which
# would otherwise show every change twice and differ between clusters applied
# by different tools.
BOOKKEEPING_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)

# Fields declared `omitempty` in the Go types: an empty value is never stored,
# so an empty value and an absent one are the same object. (service.path and
# url are pointers, so "" is stored and kept; admissionReviewVersions has no
# omitempty.)
_OMIT_WHEN_EMPTY = frozenset(
    {
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "webhooks",
        "rules",
        "matchConditions",
        "matchLabels",
        "matchExpressions",
        "caBundle",
        "operations",
        "apiGroups",
        "apiVersions",
        "resources",
        "values",
    }
)


def strip_server_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` without server-managed metadata and without ``status``."""
    return json_copy(_without_server_fields(obj))


def _without_server_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    # Filter before copying: managedFields is often most of the object.
    result = {k: v for k, v in obj.items() if k not in SERVER_MANAGED_TOP_LEVEL}
    metadata = result.get("metadata")
    if isinstance(metadata, Mapping):
        result["metadata"] = {
            k: v for k, v in metadata.items() if k not in SERVER_MANAGED_METADATA
        }
    return result


def normalize(
    obj: Mapping[str, Any], *, ignore_injected_ca_bundle: bool = False
) -> dict[str, Any]:
    """The canonical form used for diffs and fingerprints.

    The caBundle of every webhook is left out when asked to, and always when
    something injects it (``ownership.ca_bundle_injected``): an injected
    bundle is per-cluster by design and says nothing about the manifest.
    """
    drop_ca = ignore_injected_ca_bundle or ca_bundle_injected(obj)
    return normalize_with(obj, drop_ca_bundle=drop_ca)


def normalize_with(obj: Mapping[str, Any], *, drop_ca_bundle: bool) -> dict[str, Any]:
    """``normalize`` with the caBundle decision made by the caller.

    ``diff`` needs this: it decides once for both sides, so that adding the
    injector annotation does not also report every caBundle as removed.
    """
    # _prune builds a fresh structure: the one copy normalising makes (sync
    # fingerprints every changed object).
    result = _prune(_without_server_fields(obj))
    fill_defaults_in_place(result)
    metadata = result.get("metadata")
    if isinstance(metadata, dict):
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            kept = {
                k: v for k, v in annotations.items() if k not in BOOKKEEPING_ANNOTATIONS
            }
            if kept:
                metadata["annotations"] = kept
            else:
                metadata.pop("annotations")
    if drop_ca_bundle:
        for webhook in _webhooks(result):
            client_config = webhook.get("clientConfig")
            if isinstance(client_config, dict):
                client_config.pop("caBundle", None)
    return result


def fingerprint(
    obj: Mapping[str, Any], *, ignore_injected_ca_bundle: bool = False
) -> str:
    """sha256 (hex) of the normalised object as sorted-key compact JSON.

    Equal fingerprints mean "identical across clusters". Order inside lists is
    kept: webhook order matters for mutating webhooks.
    """
    normalized = normalize(obj, ignore_injected_ca_bundle=ignore_injected_ca_bundle)
    return fingerprint_normalized(normalized)


def fingerprint_normalized(normalized: Mapping[str, Any]) -> str:
    """sha256 of an already-normalised object (saves a second normalisation)."""
    text = json.dumps(
        normalized, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _webhooks(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    webhooks = obj.get("webhooks")
    if not isinstance(webhooks, list):
        return []
    return [webhook for webhook in webhooks if isinstance(webhook, dict)]


# Maps whose keys are user data, not field names: never pruned inside.
_USER_KEYED_MAPS = frozenset({"labels", "annotations", "matchLabels"})


def _prune(value: Any) -> Any:
    """Drop nulls everywhere and empty ``omitempty`` fields (see above)."""
    if isinstance(value, dict):
        pruned = {}
        for key, child in value.items():
            if child is None:
                continue
            if key not in _USER_KEYED_MAPS:
                # Scalars are most values: skip the call for them (sync
                # fingerprints every changed object through here).
                if isinstance(child, (dict, list)):
                    child = _prune(child)
            elif isinstance(child, dict):
                child = dict(child)  # values are strings: a shallow copy is a copy
            if key in _OMIT_WHEN_EMPTY and child in ("", [], {}):
                continue
            pruned[key] = child
        return pruned
    if isinstance(value, list):
        return [
            _prune(item) if isinstance(item, (dict, list)) else item for item in value
        ]
    return value
