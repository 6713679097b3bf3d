"""Would kube-apiserver call this webhook for this request? (spec section 5)

A port of ``generic/webhook.go ShouldCallHook`` and the rules, namespace and
object predicates, minus matchConditions (see ``match_conditions``).

``request`` is a plain dict of admission attributes:

* ``operation`` (CREATE/UPDATE/DELETE/CONNECT), ``group``, ``version``,
  ``resource``, ``subresource`` ("" if none);
* ``kind``, with ``kind_group`` / ``kind_version`` defaulting to ``group`` /
  ``version`` (they differ for e.g. ``deployments/scale`` → autoscaling/v1 Scale);
* ``name``, ``namespace`` ("" for cluster-scoped objects and for creating a
  Namespace; the Namespace's own name for other requests on a Namespace),
  ``cluster_scoped`` (bool; when True for anything but ``namespaces`` the
  namespace is taken as "" whatever it says);
* ``namespace_labels``: the stored namespace's labels, None when it does not
  exist; ``object_labels`` / ``old_object_labels``: ``{}`` for an object
  without labels, None when there is no such object;
* optionally ``equivalent_resources``: ``[{group, version, resource, kind:
  {group, version, kind}, subresource?}]`` in the server's order. An entry's
  ``subresource`` defaults to the request's; entries naming another
  subresource are not equivalents of this request (M-7).

Decisions:

* The M-2 virtual review resources are excluded by default
  (``exclude_virtual_resources=True``): the feature is on by default in 1.37,
  the line the spec describes. Pass False for clusters before it.
* A namespaced request whose namespace does not exist, with a non-empty
  namespaceSelector and matching rules, is reported as not matched with reason
  ``namespace-not-found``: the apiserver rejects the request with NotFound.
* A stored selector that cannot be converted (kept through V-43) with matching
  rules gives reason ``selector-error``: the apiserver fails the request with
  an internal error.
* On CONNECT both objects are options objects without metadata, so the object
  labels given are ignored and a non-empty objectSelector never matches (M-5).
* For CREATE/UPDATE of a Namespace the namespaceSelector reads
  ``object_labels`` (M-4); if those are None they are taken as ``{}``.
* Each request dict is read once (``read_request``) and each webhook compiled
  once (``compile_webhook``); ``evaluate_compiled`` takes both, for callers
  that match one request against many webhooks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.kinds import GROUP as ADMISSION_GROUP
from webhooks_ui.domain.label_selectors import (
    INVALID,
    CompiledSelector,
    compile_selector,
    match_selector,
)

# Reasons (MatchResult.reason).
EXEMPT = "exempt"
NAMESPACE_SELECTOR = "namespaceSelector"
OBJECT_SELECTOR = "objectSelector"
RULES = "rules"
SCOPE = "scope"
MATCHED = "matched"
MATCHED_EQUIVALENT = "matched-equivalent"
NAMESPACE_NOT_FOUND = "namespace-not-found"
SELECTOR_ERROR = "selector-error"

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"
OPERATIONS = (CREATE, UPDATE, DELETE, CONNECT)

# M-1: kinds of admissionregistration.k8s.io never sent to API-registered
# webhooks (rules.IsExemptAdmissionConfigurationResource). Matched on the
# request's *kind* and its group: the same kind name elsewhere is not exempt.
EXEMPT_KINDS = frozenset(
    {
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)
# M-2: non-persisted review resources (exclusion/resources.go), by group and
# resource, excluded under ExcludeAdmissionWebhookVirtualResources.
VIRTUAL_RESOURCES = frozenset(
    {
        ("authentication.k8s.io", "tokenreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
    }
)
# M-6: the one resource the scope check treats as cluster-scoped even though
# its requests carry a namespace (the Namespace's own name).
NAMESPACES_GVR = ("", "v1", "namespaces")

WILDCARD = "*"
ALL_SCOPES = "*"
CLUSTER_SCOPE = "Cluster"
NAMESPACED_SCOPE = "Namespaced"


@dataclass(frozen=True)
class Attributes:
    """A request dict read once; matched against many webhooks."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    kind_group: str
    kind_version: str
    kind: str
    name: str
    namespace: str
    namespace_labels: Mapping[str, str] | None
    object_labels: Mapping[str, str] | None
    old_object_labels: Mapping[str, str] | None
    equivalents: tuple[tuple[str, str, str, tuple[str, str, str]], ...]

    @property
    def gvr(self) -> tuple[str, str, str]:
        return (self.group, self.version, self.resource)


@dataclass(frozen=True)
class CompiledRule:
    """One rule with its lists turned into sets (M-6)."""

    operations: frozenset[str]
    groups: frozenset[str]
    versions: frozenset[str]
    # (resource, subresource) pairs split at the first "/".
    resources: tuple[tuple[str, str], ...]
    scope: str

    def matches_without_scope(
        self, operation: str, gvr: tuple[str, str, str], subresource: str
    ) -> bool:
        group, version, resource = gvr
        if WILDCARD not in self.operations and operation not in self.operations:
            return False
        if WILDCARD not in self.groups and group not in self.groups:
            return False
        if WILDCARD not in self.versions and version not in self.versions:
            return False
        return any(
            res in (WILDCARD, resource) and sub in (WILDCARD, subresource)
            for res, sub in self.resources
        )

    def scope_matches(self, gvr: tuple[str, str, str], namespace: str) -> bool:
        # M-6: Namespace objects count as cluster-scoped although their
        # requests carry the namespace's own name; subresources follow the
        # parent because the namespace attribute does.
        if self.scope == ALL_SCOPES:
            return True
        if self.scope == CLUSTER_SCOPE:
            return gvr == NAMESPACES_GVR or namespace == ""
        if self.scope == NAMESPACED_SCOPE:
            return gvr != NAMESPACES_GVR and namespace != ""
        return False


@dataclass(frozen=True)
class CompiledWebhook:
    """What matching needs from one stored webhook, parsed once."""

    name: str
    rules: tuple[CompiledRule, ...]
    namespace_selector: CompiledSelector
    object_selector: CompiledSelector
    exact: bool


@dataclass(frozen=True)
class MatchResult:
    """Whether the apiserver would call the webhook (matchConditions aside)."""

    matched: bool
    reason: str
    detail: str
    matched_rule_index: int | None = None
    # (group, version, resource) the request is converted to when matched
    # through an equivalent resource (M-7), and the kind it converts to.
    converted_to: tuple[str, str, str] | None = None
    converted_kind: tuple[str, str, str] | None = None

    @property
    def fails_request(self) -> bool:
        """True when the apiserver would reject the request because of this webhook."""
        return self.reason in (NAMESPACE_NOT_FOUND, SELECTOR_ERROR)


def matches(
    webhook: Mapping[str, Any],
    request: Mapping[str, Any],
    *,
    exclude_virtual_resources: bool = True,
) -> bool:
    """True when kube-apiserver would call ``webhook`` for ``request``."""
    return evaluate(
        webhook, request, exclude_virtual_resources=exclude_virtual_resources
    ).matched


def evaluate(
    webhook: Mapping[str, Any] | CompiledWebhook,
    request: Mapping[str, Any] | Attributes,
    *,
    exclude_virtual_resources: bool = True,
) -> MatchResult:
    """``matches`` with the reason and a plain-English detail."""
    compiled = (
        webhook if isinstance(webhook, CompiledWebhook) else compile_webhook(webhook)
    )
    attributes = request if isinstance(request, Attributes) else read_request(request)
    return evaluate_compiled(
        compiled, attributes, exclude_virtual_resources=exclude_virtual_resources
    )


def evaluate_compiled(
    webhook: CompiledWebhook,
    attributes: Attributes,
    *,
    exclude_virtual_resources: bool = True,
) -> MatchResult:
    """The ShouldCallHook order (M-3): exemptions, selectors, rules, errors."""
    exempt = exemption(attributes, exclude_virtual_resources=exclude_virtual_resources)
    if exempt is not None:
        return MatchResult(False, EXEMPT, exempt)
    # Selector errors and a missing namespace only fail the request when the
    # rules match, so they are held back until the rules have been checked.
    namespace_ok, namespace_detail, namespace_failure = _namespace_outcome(
        webhook.namespace_selector, attributes
    )
    if not namespace_ok and namespace_failure is None:
        return MatchResult(False, NAMESPACE_SELECTOR, namespace_detail)
    object_ok, object_detail, object_failure = _object_outcome(
        webhook.object_selector, attributes
    )
    if not object_ok and object_failure is None:
        return MatchResult(False, OBJECT_SELECTOR, object_detail)
    hit = match_rules(webhook, attributes)
    if hit is None:
        return _rules_miss(webhook, attributes)
    index, converted, converted_kind = hit
    if namespace_failure is not None:
        return MatchResult(False, namespace_failure, namespace_detail, index)
    if object_failure is not None:
        return MatchResult(False, object_failure, object_detail, index)
    if converted is None:
        detail = f"rule {index} matches {_describe_request(attributes)}"
        return MatchResult(True, MATCHED, detail, index)
    detail = (
        f"rule {index} matches the equivalent resource {_describe_gvr(converted)}; "
        f"the request is converted to it ({_describe_request(attributes)})"
    )
    return MatchResult(
        True, MATCHED_EQUIVALENT, detail, index, converted, converted_kind
    )


def exemption(
    attributes: Attributes, *, exclude_virtual_resources: bool = True
) -> str | None:
    """Why no webhook sees this request (M-1, M-2), or None."""
    if attributes.kind_group == ADMISSION_GROUP and attributes.kind in EXEMPT_KINDS:
        return (
            f"{attributes.kind} objects ({ADMISSION_GROUP}) are never sent to "
            "webhooks registered through the API"
        )
    if (
        exclude_virtual_resources
        and (attributes.group, attributes.resource) in VIRTUAL_RESOURCES
    ):
        return (
            f"{attributes.resource}.{attributes.group} is a virtual review resource, "
            "excluded from webhooks (ExcludeAdmissionWebhookVirtualResources)"
        )
    return None


def match_rules(
    webhook: CompiledWebhook, attributes: Attributes
) -> tuple[int, tuple[str, str, str] | None, tuple[str, str, str] | None] | None:
    """(rule index, converted gvr, converted kind) of the first hit (M-6, M-7)."""
    operation = attributes.operation
    subresource = attributes.subresource
    namespace = attributes.namespace
    gvr = attributes.gvr
    for index, rule in enumerate(webhook.rules):
        if rule.matches_without_scope(
            operation, gvr, subresource
        ) and rule.scope_matches(gvr, namespace):
            return index, None, None
    if webhook.exact:
        return None
    # M-7: earlier rules win; within a rule, equivalents in the server's order.
    for index, rule in enumerate(webhook.rules):
        for equivalent, kind in _equivalents(attributes):
            if rule.matches_without_scope(
                operation, equivalent, subresource
            ) and rule.scope_matches(equivalent, namespace):
                return index, equivalent, kind
    return None


def compile_webhook(webhook: Mapping[str, Any]) -> CompiledWebhook:
    """Parse a stored webhook once, applying D-1/D-3 to what is missing."""
    raw_rules = webhook.get("rules")
    rules = tuple(
        compile_rule(rule)
        for rule in (raw_rules if isinstance(raw_rules, list) else ())
        if isinstance(rule, Mapping)
    )
    # D-1: absent or null selectors are stored as {} (match everything).
    namespace_selector = webhook.get("namespaceSelector")
    object_selector = webhook.get("objectSelector")
    return CompiledWebhook(
        name=str(webhook.get("name") or ""),
        rules=rules,
        namespace_selector=compile_selector(
            {} if namespace_selector is None else namespace_selector, noun="namespaces"
        ),
        object_selector=compile_selector(
            {} if object_selector is None else object_selector
        ),
        # D-1: matchPolicy defaults to Equivalent.
        exact=webhook.get("matchPolicy") == "Exact",
    )


def compile_rule(rule: Mapping[str, Any]) -> CompiledRule:
    scope = rule.get("scope")
    return CompiledRule(
        operations=frozenset(_strings(rule.get("operations"))),
        groups=frozenset(_strings(rule.get("apiGroups"))),
        versions=frozenset(_strings(rule.get("apiVersions"))),
        resources=tuple(
            _split_resource(entry) for entry in _strings(rule.get("resources"))
        ),
        # D-3: an absent scope is "*".
        scope=ALL_SCOPES if scope is None else str(scope),
    )


def read_request(request: Mapping[str, Any]) -> Attributes:
    """Attributes from the request dict described in the module docstring."""
    group = str(request.get("group") or "")
    version = str(request.get("version") or "")
    resource = str(request.get("resource") or "")
    subresource = str(request.get("subresource") or "")
    namespace = str(request.get("namespace") or "")
    if request.get("cluster_scoped") and resource != "namespaces":
        namespace = ""
    operation = str(request.get("operation") or "")
    object_labels = _labels(request.get("object_labels"))
    old_object_labels = _labels(request.get("old_object_labels"))
    return Attributes(
        operation=operation,
        group=group,
        version=version,
        resource=resource,
        subresource=subresource,
        kind_group=str(request.get("kind_group", group) or ""),
        kind_version=str(request.get("kind_version", version) or ""),
        kind=str(request.get("kind") or ""),
        name=str(request.get("name") or ""),
        namespace=namespace,
        namespace_labels=_labels(request.get("namespace_labels")),
        object_labels=object_labels,
        old_object_labels=old_object_labels,
        equivalents=tuple(
            _read_equivalents(request.get("equivalent_resources"), subresource)
        ),
    )


# --- namespaceSelector (M-4) and objectSelector (M-5) ------------------------------


def _namespace_outcome(
    selector: CompiledSelector, attributes: Attributes
) -> tuple[bool, str, str | None]:
    """(passes, detail, failure reason held until the rules match)."""
    namespace = attributes.namespace
    is_namespace_request = attributes.resource == "namespaces"
    if namespace == "" and not is_namespace_request:
        return True, "cluster-scoped requests are not filtered by namespace", None
    if selector.state == INVALID:
        detail = (
            f"the namespaceSelector cannot be used ({selector.error}); the apiserver "
            "fails requests the rules match with an internal error"
        )
        return False, detail, SELECTOR_ERROR
    if selector.is_empty:
        return True, "the namespaceSelector is empty and matches every namespace", None
    if (
        is_namespace_request
        and attributes.subresource == ""
        and attributes.operation in (CREATE, UPDATE)
    ):
        # The namespace being written is judged by its new labels: the
        # stored one is stale on UPDATE and absent on CREATE.
        name = attributes.name or namespace
        subject = f"the new namespace {name}" if name else "the new namespace"
        labels = attributes.object_labels or {}
    else:
        labels = attributes.namespace_labels
        subject = f"namespace {namespace}"
        if labels is None:
            detail = (
                f"namespace {namespace} not found — the apiserver would reject the "
                "request (NotFound) if the rules match"
            )
            return False, detail, NAMESPACE_NOT_FOUND
    result = match_selector(selector, labels, subject=subject)
    return result.matched, result.detail, None


def _object_outcome(
    selector: CompiledSelector, attributes: Attributes
) -> tuple[bool, str, str | None]:
    if selector.state == INVALID:
        detail = (
            f"the objectSelector cannot be used ({selector.error}); the apiserver "
            "fails requests the rules match with an internal error"
        )
        return False, detail, SELECTOR_ERROR
    if selector.is_empty:
        return True, "the objectSelector is empty and matches every object", None
    if attributes.operation == CONNECT:
        # M-5: CONNECT carries options objects without metadata; nothing matches.
        detail = (
            "CONNECT requests carry an options object without labels, which a "
            "non-empty objectSelector never matches"
        )
        return False, detail, None
    new = match_selector(selector, attributes.object_labels, subject="the new object")
    if new.matched:
        return True, new.detail, None
    old = match_selector(
        selector, attributes.old_object_labels, subject="the old object"
    )
    if old.matched:
        return True, old.detail, None
    return False, f"{new.detail}; {old.detail}", None


# --- wording of a rules miss -------------------------------------------------------


def _rules_miss(webhook: CompiledWebhook, attributes: Attributes) -> MatchResult:
    """Reason ``scope`` when a rule matches all but its scope, else ``rules``."""
    candidates = [(attributes.gvr, None)]
    if not webhook.exact:
        candidates.extend(_equivalents(attributes))
    for index, rule in enumerate(webhook.rules):
        for gvr, _kind in candidates:
            if rule.matches_without_scope(
                attributes.operation, gvr, attributes.subresource
            ):
                where = (
                    "a namespaced request"
                    if attributes.namespace and gvr != NAMESPACES_GVR
                    else "a cluster-scoped request"
                )
                detail = (
                    f"rule {index} names {_describe_request(attributes)} but its "
                    f"scope {rule.scope!r} excludes {where}"
                )
                return MatchResult(False, SCOPE, detail, index)
    if not webhook.rules:
        return MatchResult(False, RULES, "the webhook has no rules")
    detail = f"no rule matches {_describe_request(attributes)}"
    if not webhook.exact and attributes.equivalents:
        detail += " or any equivalent resource"
    elif webhook.exact:
        detail += " (matchPolicy Exact: equivalent resources are not tried)"
    return MatchResult(False, RULES, detail)


def _describe_request(attributes: Attributes) -> str:
    resource = attributes.resource
    if attributes.subresource:
        resource = f"{resource}/{attributes.subresource}"
    group = attributes.group or "core"
    return f"{attributes.operation} {resource} ({group}/{attributes.version})"


def _describe_gvr(gvr: tuple[str, str, str]) -> str:
    group, version, resource = gvr
    return f"{resource} ({group or 'core'}/{version})"


# --- small readers -------------------------------------------------------------


def _equivalents(
    attributes: Attributes,
) -> Iterable[tuple[tuple[str, str, str], tuple[str, str, str]]]:
    own = attributes.gvr
    for group, version, resource, kind in attributes.equivalents:
        gvr = (group, version, resource)
        if gvr != own:  # the request's own resource was tried first
            yield gvr, kind


def _read_equivalents(
    raw: Any, subresource: str
) -> Iterable[tuple[str, str, str, tuple[str, str, str]]]:
    if not isinstance(raw, list):
        return
    for entry in raw:
        if not isinstance(entry, Mapping):
            continue
        # M-7: for a subresource request only equivalents with that subresource.
        if str(entry.get("subresource", subresource) or "") != subresource:
            continue
        kind = entry.get("kind")
        kind = kind if isinstance(kind, Mapping) else {}
        yield (
            str(entry.get("group") or ""),
            str(entry.get("version") or ""),
            str(entry.get("resource") or ""),
            (
                str(kind.get("group") or ""),
                str(kind.get("version") or ""),
                str(kind.get("kind") or ""),
            ),
        )


def _split_resource(entry: str) -> tuple[str, str]:
    # M-6: split at the first "/"; no "/" means the main resource only.
    resource, _, subresource = entry.partition("/")
    return resource, subresource


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def _labels(value: Any) -> Mapping[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return {}
    return value
