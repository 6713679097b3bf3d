"""Who else writes this webhook configuration, read from its labels and managedFields.

The review pages warn before an edit that a GitOps tool, an operator or a CA
injector will undo or overwrite; normalisation uses ``ca_bundle_injected`` to
leave an injected caBundle out of comparisons (it differs on every cluster by
design).

Evidence strings name the exact metadata that was read, in the key-path format
of ``diff.py``: ``metadata.labels["app.kubernetes.io/managed-by"]=Helm``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

HELM = "helm"
ARGOCD = "argocd"
FLUX = "flux"
KUSTOMIZE = "kustomize"
OLM = "operator-lifecycle-manager"
CA_INJECTOR = "ca-injector"
CONTROLLER = "controller"
MANAGED_BY_LABEL = "managed-by-label"
OWNER_REFERENCE = "owner-reference"

# Field managers that are people (or a one-shot install by a person): their
# entries in managedFields say who last touched a field, not that anything
# will come back and change it.
INTERACTIVE_MANAGERS = frozenset(
    {
        "kubectl",
        "kubectl-client-side-apply",
        "kubectl-edit",
        "kubectl-patch",
        "kubectl-create",
        "kubectl-replace",
        "kubectl-apply",
        "kubectl-label",
        "kubectl-annotate",
        "kubectl-set",
        "kubectl-scale",
        "before-first-apply",
        "k9s",
        "Mozilla",  # the Kubernetes dashboard and other browser clients
    }
)

# Field managers with a known identity: (owner kind, owner name).
_KNOWN_MANAGERS: dict[str, tuple[str, str]] = {
    "helm": (HELM, ""),
    "Helm": (HELM, ""),
    "argocd-controller": (ARGOCD, ""),
    "argocd-application-controller": (ARGOCD, ""),
    "argocd-server": (ARGOCD, ""),
    "kustomize-controller": (FLUX, "kustomize-controller"),
    "helm-controller": (FLUX, "helm-controller"),
    "cert-manager-cainjector": (CA_INJECTOR, "cert-manager"),
    "cainjector": (CA_INJECTOR, "cert-manager"),
    "olm": (OLM, ""),
    "catalog": (OLM, ""),
}

CERT_MANAGER_ANNOTATIONS = (
    "cert-manager.io/inject-ca-from",
    "cert-manager.io/inject-ca-from-secret",
    "cert-manager.io/inject-apiserver-ca",
)
OPENSHIFT_INJECT_ANNOTATION = "service.beta.openshift.io/inject-cabundle"

_CA_BUNDLE_LEAF = ("f:clientConfig", "f:caBundle")


@dataclass(frozen=True)
class Owner:
    """Something other than the person at the keyboard that writes this object.

    ``reverts_edits``: it reconciles the object and will undo manual edits to
    the fields it manages (for Argo CD that holds only with automated
    self-heal, which we cannot see from here, so we assume the cautious case).
    ``owns_ca_bundle``: it writes ``clientConfig.caBundle`` itself.
    """

    kind: str
    name: str
    detail: str
    evidence: tuple[str, ...]
    reverts_edits: bool = False
    owns_ca_bundle: bool = False


def detect_owners(
    obj: Mapping[str, Any], *, interactive_managers: Collection[str] = ()
) -> list[Owner]:
    """All owners found on ``obj``, one per (kind, name), evidence merged.

    ``interactive_managers`` adds field-manager names that are people rather
    than controllers (for example this dashboard's own field manager).
    """
    metadata = _mapping(obj.get("metadata"))
    labels = _string_map(metadata.get("labels"))
    annotations = _string_map(metadata.get("annotations"))
    found: list[Owner] = []
    found.extend(_helm(labels, annotations))
    found.extend(_argocd(labels, annotations))
    found.extend(_flux(labels))
    found.extend(_managed_by_label(labels))
    found.extend(_olm(labels))
    found.extend(_ca_injector_annotations(annotations))
    found.extend(_self_managing_projects(obj, labels))
    found.extend(_owner_references(metadata.get("ownerReferences")))
    ignored = INTERACTIVE_MANAGERS | frozenset(interactive_managers)
    found.extend(_field_managers(metadata.get("managedFields"), ignored))
    return _merge(found)


def ca_bundle_injected(obj: Mapping[str, Any] | None) -> bool:
    """True when something other than the manifest author writes caBundle."""
    if not obj:
        return False
    return any(owner.owns_ca_bundle for owner in detect_owners(obj))


def ca_bundle_managers(obj: Mapping[str, Any]) -> list[str]:
    """Field managers that own any webhook's ``clientConfig.caBundle``, in order."""
    metadata = _mapping(obj.get("metadata"))
    managers: list[str] = []
    for entry in _managed_field_entries(metadata.get("managedFields")):
        manager = str(entry.get("manager") or "")
        leaves = list(_webhook_leaves(entry))
        owns_ca = any(leaf[-2:] == _CA_BUNDLE_LEAF for leaf in leaves)
        if owns_ca and manager not in managers:
            managers.append(manager)
    return managers


# --- labels and annotations -------------------------------------------------


def _helm(labels: dict[str, str], annotations: dict[str, str]) -> Iterator[Owner]:
    evidence = []
    managed_by = labels.get("app.kubernetes.io/managed-by", "")
    if managed_by.lower() == "helm":
        evidence.append(_label("app.kubernetes.io/managed-by", managed_by))
    release = annotations.get("meta.helm.sh/release-name", "")
    namespace = annotations.get("meta.helm.sh/release-namespace", "")
    if release:
        evidence.append(_annotation("meta.helm.sh/release-name", release))
    if namespace:
        evidence.append(_annotation("meta.helm.sh/release-namespace", namespace))
    if "helm.sh/chart" in labels:
        evidence.append(_label("helm.sh/chart", labels["helm.sh/chart"]))
    if not evidence:
        return
    name = f"{namespace}/{release}" if namespace and release else release
    yield Owner(
        kind=HELM,
        name=name,
        detail=(
            "Installed by a Helm release; the next helm upgrade re-renders "
            "the chart and may overwrite manual edits."
        ),
        evidence=tuple(evidence),
    )


def _argocd(labels: dict[str, str], annotations: dict[str, str]) -> Iterator[Owner]:
    evidence = []
    name = ""
    if "argocd.argoproj.io/instance" in labels:
        name = labels["argocd.argoproj.io/instance"]
        evidence.append(_label("argocd.argoproj.io/instance", name))
    tracking = annotations.get("argocd.argoproj.io/tracking-id", "")
    if tracking:
        # Format: "<app>:<group>/<kind>:<namespace>/<name>"; the app comes first.
        name = name or tracking.split(":", 1)[0]
        evidence.append(_annotation("argocd.argoproj.io/tracking-id", tracking))
    if evidence:
        yield Owner(
            kind=ARGOCD,
            name=name,
            detail=(
                "Synced by an Argo CD Application; with automated self-heal "
                "manual edits are reverted, otherwise it shows OutOfSync."
            ),
            evidence=tuple(evidence),
            reverts_edits=True,
        )


def _flux(labels: dict[str, str]) -> Iterator[Owner]:
    for source, what in (
        ("kustomize.toolkit.fluxcd.io", "Kustomization"),
        ("helm.toolkit.fluxcd.io", "HelmRelease"),
    ):
        keys = sorted(key for key in labels if key.startswith(source + "/"))
        if not keys:
            continue
        name = labels.get(f"{source}/name", "")
        namespace = labels.get(f"{source}/namespace", "")
        yield Owner(
            kind=FLUX,
            name=f"{namespace}/{name}" if namespace and name else name,
            detail=(
                f"Reconciled by a Flux {what}; manual edits are reverted on "
                "the next reconciliation."
            ),
            evidence=tuple(_label(key, labels[key]) for key in keys),
            reverts_edits=True,
        )


def _managed_by_label(labels: dict[str, str]) -> Iterator[Owner]:
    value = labels.get("app.kubernetes.io/managed-by", "")
    if not value or value.lower() == "helm":
        return
    evidence = (_label("app.kubernetes.io/managed-by", value),)
    if value.lower() == "kustomize":
        yield Owner(
            kind=KUSTOMIZE,
            name="",
            detail="Rendered by kustomize; edit the kustomization, not the cluster.",
            evidence=evidence,
        )
        return
    yield Owner(
        kind=MANAGED_BY_LABEL,
        name=value,
        detail=f"Labelled as managed by {value!r}.",
        evidence=evidence,
    )


def _olm(labels: dict[str, str]) -> Iterator[Owner]:
    keys = sorted(key for key in labels if key.startswith("olm."))
    if not keys:
        return
    owner = labels.get("olm.owner", "")
    namespace = labels.get("olm.owner.namespace", "")
    yield Owner(
        kind=OLM,
        name=f"{namespace}/{owner}" if namespace and owner else owner,
        detail=(
            "Created by Operator Lifecycle Manager from a ClusterServiceVersion; "
            "OLM rewrites the webhooks and their caBundle."
        ),
        evidence=tuple(_label(key, labels[key]) for key in keys),
        reverts_edits=True,
        owns_ca_bundle=True,
    )


def _ca_injector_annotations(annotations: dict[str, str]) -> Iterator[Owner]:
    evidence = []
    source = ""
    for key in CERT_MANAGER_ANNOTATIONS:
        value = annotations.get(key)
        if value is None:
            continue
        # inject-apiserver-ca only counts when "true" (cert-manager's own rule).
        if key.endswith("inject-apiserver-ca") and value.lower() != "true":
            continue
        evidence.append(_annotation(key, value))
        source = source or value
    if evidence:
        yield Owner(
            kind=CA_INJECTOR,
            name="cert-manager",
            detail=(
                "cert-manager's cainjector writes every webhook's caBundle"
                + (f" from {source}" if source and source != "true" else "")
                + "; a hand-edited caBundle is overwritten."
            ),
            evidence=tuple(evidence),
            owns_ca_bundle=True,
        )
    value = annotations.get(OPENSHIFT_INJECT_ANNOTATION)
    if value is not None and value.lower() == "true":
        yield Owner(
            kind=CA_INJECTOR,
            name="openshift-service-ca",
            detail=(
                "OpenShift's service-ca operator writes every webhook's caBundle; "
                "a hand-edited caBundle is overwritten."
            ),
            evidence=(_annotation(OPENSHIFT_INJECT_ANNOTATION, value),),
            owns_ca_bundle=True,
        )


# Projects (seen in the corpus) whose running controller manages its own
# webhook configuration. Matching is on labels the project sets itself, or on
# the knative.dev/pkg naming convention, which the evidence string says.
_KNATIVE_PKG_NAME = re.compile(
    r"\.(knative\.dev|tekton\.dev|sigstore\.dev)$", flags=re.IGNORECASE
)


def _self_managing_projects(
    obj: Mapping[str, Any], labels: dict[str, str]
) -> Iterator[Owner]:
    if labels.get("webhook.kyverno.io/managed-by"):
        value = labels["webhook.kyverno.io/managed-by"]
        yield Owner(
            kind=CONTROLLER,
            name="kyverno",
            detail=(
                "Kyverno generates this configuration from its policies and "
                "rewrites the webhooks and their caBundle."
            ),
            evidence=(_label("webhook.kyverno.io/managed-by", value),),
            reverts_edits=True,
            owns_ca_bundle=True,
        )
    if "gatekeeper.sh/system" in labels:
        yield Owner(
            kind=CA_INJECTOR,
            name="gatekeeper",
            detail=(
                "Gatekeeper's certificate rotator writes every webhook's caBundle."
            ),
            evidence=(_label("gatekeeper.sh/system", labels["gatekeeper.sh/system"]),),
            owns_ca_bundle=True,
        )
    if "istio.io/rev" in labels:
        validating = obj.get("kind") == "ValidatingWebhookConfiguration"
        yield Owner(
            kind=CA_INJECTOR,
            name="istiod",
            detail=(
                "istiod patches the caBundle of webhook configurations labelled "
                "with its revision"
                + (
                    " and switches failurePolicy to Fail once ready."
                    if validating
                    else "."
                )
            ),
            evidence=(_label("istio.io/rev", labels["istio.io/rev"]),),
            reverts_edits=validating,
            owns_ca_bundle=True,
        )
    if labels.get("app.kubernetes.io/name") == "vault-injector":
        yield Owner(
            kind=CA_INJECTOR,
            name="vault-k8s",
            detail=(
                "The Vault agent injector (with -tls-auto, the chart default) "
                "generates its certificate and writes the caBundle."
            ),
            evidence=(_label("app.kubernetes.io/name", "vault-injector"),),
            owns_ca_bundle=True,
        )
    name = str(_mapping(obj.get("metadata")).get("name") or "")
    if _KNATIVE_PKG_NAME.search(name):
        yield Owner(
            kind=CONTROLLER,
            name="knative.dev/pkg webhook",
            detail=(
                "Webhooks built on knative.dev/pkg reconcile their configuration "
                "(rules and caBundle) from the running webhook deployment."
            ),
            evidence=(f'metadata.name="{name}" (knative.dev/pkg naming)',),
            reverts_edits=True,
            owns_ca_bundle=True,
        )


def _owner_references(value: Any) -> Iterator[Owner]:
    if not isinstance(value, list):
        return
    for index, ref in enumerate(value):
        if not isinstance(ref, Mapping):
            continue
        kind = str(ref.get("kind") or "")
        name = str(ref.get("name") or "")
        controller = ref.get("controller") is True
        yield Owner(
            kind=OWNER_REFERENCE,
            name=f"{kind}/{name}",
            detail=(
                f"Owned by {kind} {name!r}"
                + ("; its controller recreates and rewrites it." if controller else ".")
            ),
            evidence=(f"metadata.ownerReferences[{index}]",),
            reverts_edits=controller,
        )


# --- managedFields -----------------------------------------------------------


def _field_managers(value: Any, ignored: frozenset[str]) -> Iterator[Owner]:
    for index, entry in enumerate(_managed_field_entries(value)):
        manager = str(entry.get("manager") or "")
        if not manager or manager in ignored:
            continue
        # The list item itself (".") and its merge key ("f:name") appear in a
        # server-side-apply entry next to whatever field is really applied.
        leaves = [leaf for leaf in _webhook_leaves(entry) if _substantive(leaf)]
        if not leaves:
            # Only metadata (a label, an annotation): not an owner of webhooks.
            continue
        owns_ca = any(leaf[-2:] == _CA_BUNDLE_LEAF for leaf in leaves)
        only_ca = all(leaf[-2:] == _CA_BUNDLE_LEAF for leaf in leaves)
        evidence = (f"metadata.managedFields[{index}] (manager {manager!r})",)
        known = _KNOWN_MANAGERS.get(manager)
        if known is not None:
            kind, name = known
            yield Owner(
                kind=kind,
                name=name,
                detail=f"Field manager {manager!r} writes the webhooks.",
                evidence=evidence,
                reverts_edits=kind in (ARGOCD, FLUX, OLM),
                owns_ca_bundle=owns_ca and kind in (CA_INJECTOR, OLM),
            )
        elif only_ca:
            yield Owner(
                kind=CA_INJECTOR,
                name=manager,
                detail=f"Field manager {manager!r} writes the webhooks' caBundle.",
                evidence=evidence,
                owns_ca_bundle=True,
            )
        else:
            yield Owner(
                kind=CONTROLLER,
                name=manager,
                detail=(
                    f"Field manager {manager!r} writes webhook fields; a "
                    "controller like this usually rewrites them after an edit."
                ),
                evidence=evidence,
                reverts_edits=True,
                owns_ca_bundle=owns_ca,
            )


def _substantive(leaf: tuple[str, ...]) -> bool:
    return len(leaf) > 2 and leaf[2:] != ("f:name",)


def _managed_field_entries(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, list):
        yield from (entry for entry in value if isinstance(entry, Mapping))


def _webhook_leaves(entry: Mapping[str, Any]) -> Iterator[tuple[str, ...]]:
    """Leaf paths below ``f:webhooks`` in one managedFields entry (FieldsV1)."""
    fields = entry.get("fieldsV1")
    if isinstance(fields, str):
        # Some clients hand FieldsV1 over as its raw JSON text.
        try:
            fields = json.loads(fields)
        except ValueError:
            return
    if not isinstance(fields, Mapping):
        return
    webhooks = fields.get("f:webhooks")
    if isinstance(webhooks, Mapping):
        yield from _leaves(webhooks, ("f:webhooks",))


def _leaves(
    fields: Mapping[str, Any], prefix: tuple[str, ...]
) -> Iterator[tuple[str, ...]]:
    if not fields:
        yield prefix
        return
    for key, child in fields.items():
        if key == ".":
            yield prefix
        elif isinstance(child, Mapping):
            yield from _leaves(child, (*prefix, key))
        else:
            yield (*prefix, key)


# --- helpers -----------------------------------------------------------------


def _merge(owners: list[Owner]) -> list[Owner]:
    """One owner per (kind, name) in first-seen order; evidence and flags merged.

    A managedFields entry for a known tool (name "") folds into the owner the
    labels found (which knows the release or app name).
    """
    merged: list[Owner] = []
    for owner in owners:
        for index, seen in enumerate(merged):
            if seen.kind == owner.kind and owner.name in (seen.name, ""):
                merged[index] = replace(
                    seen,
                    evidence=seen.evidence
                    + tuple(e for e in owner.evidence if e not in seen.evidence),
                    reverts_edits=seen.reverts_edits or owner.reverts_edits,
                    owns_ca_bundle=seen.owns_ca_bundle or owner.owns_ca_bundle,
                )
                break
        else:
            merged.append(owner)
    return merged


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


def _label(key: str, value: str) -> str:
    return f"metadata.labels[{json.dumps(key)}]={value}"


def _annotation(key: str, value: str) -> str:
    return f"metadata.annotations[{json.dumps(key)}]={value}"
