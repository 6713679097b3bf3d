"""What a webhook intercepts on a cluster, and who intercepts a request.

``webhook_coverage`` expands a webhook's rules against the cluster's served
resources (``discovery.ResourceTable``) with the same rule, scope and
equivalence semantics as ``matching`` (M-6, M-7), removes what no webhook
ever sees (M-1, M-2), and splits the cluster's namespaces into selected and
excluded by the namespaceSelector (M-4).

``who_intercepts`` lists the webhooks kube-apiserver would call for one
request, in call order, with why the others are skipped.

Both take plain lists but accept prepared forms (``ResourceTable``,
``PreparedConfigurations``) so a page or a benchmark that asks many
questions about one cluster indexes it once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.discovery import (
    CONNECT,
    OPERATION_ORDER,
    ApiResource,
    ResourceTable,
    as_table,
    equivalent_resources,
)
from webhooks_ui.domain.kinds import GROUP as ADMISSION_GROUP
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.domain.label_selectors import INVALID, CompiledSelector, match_selector
from webhooks_ui.domain.match_conditions import (
    CALL,
    REJECT,
    SKIP,
    UNKNOWN,
    ConditionsResult,
    cel_request,
    evaluate_match_conditions,
)
from webhooks_ui.domain.matching import (
    EXEMPT_KINDS,
    VIRTUAL_RESOURCES,
    WILDCARD,
    CompiledRule,
    CompiledWebhook,
    MatchResult,
    compile_webhook,
    evaluate_compiled,
    read_request,
)

NOT_EVALUATED = "not evaluated"
DEFAULT_TIMEOUT_SECONDS = 10  # D-1
# A namespace name stands in for "some namespace" when checking the scope of
# namespaced resources: only emptiness matters to the scope check (M-6).
_SOME_NAMESPACE = "some-namespace"


# --- coverage of one webhook -------------------------------------------------------


@dataclass(frozen=True)
class CoveredResource:
    """A served resource (or subresource) and the operations intercepted on it."""

    group: str
    version: str
    resource: str
    subresource: str
    kind: str
    namespaced: bool
    operations: tuple[str, ...]
    rule_index: int
    # Operations covered only because a rule names an equivalent resource
    # (matchPolicy Equivalent, M-7), and the first resource converted to.
    equivalent_operations: tuple[str, ...] = ()
    converted_to: tuple[str, str, str] | None = None

    @property
    def name(self) -> str:
        return (
            f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        )

    @property
    def is_cluster_scoped(self) -> bool:
        return not self.namespaced


@dataclass(frozen=True)
class NamespaceVerdict:
    name: str
    selected: bool
    reason: str


@dataclass(frozen=True)
class Coverage:
    """Everything a webhook intercepts on one cluster."""

    webhook_name: str
    resources: tuple[CoveredResource, ...]
    # Resources the rules name that no webhook is ever sent (M-1, M-2).
    exempt: tuple[CoveredResource, ...]
    selected_namespaces: tuple[str, ...]
    excluded_namespaces: tuple[NamespaceVerdict, ...]
    namespace_selector_empty: bool
    namespace_selector_error: str | None
    object_selector_narrows: bool
    object_selector_error: str | None
    match_conditions_narrow: bool
    notes: tuple[str, ...]

    @property
    def intercepted(self) -> tuple[tuple[str, str, str, str, tuple[str, ...]], ...]:
        """(group, version, resource, subresource, operations) per resource."""
        return tuple(
            (r.group, r.version, r.resource, r.subresource, r.operations)
            for r in self.resources
        )

    @property
    def cluster_scoped(self) -> tuple[CoveredResource, ...]:
        """Covered cluster-scoped resources other than namespaces: the
        namespaceSelector never filters them (M-4)."""
        return tuple(
            r
            for r in self.resources
            if r.is_cluster_scoped and r.resource != "namespaces"
        )

    @property
    def covers_cluster_scoped(self) -> bool:
        return bool(self.cluster_scoped)


def webhook_coverage(
    webhook: Mapping[str, Any] | CompiledWebhook,
    *,
    resources: Sequence[ApiResource] | ResourceTable,
    namespaces: Sequence[Mapping[str, Any]],
    exclude_virtual_resources: bool = True,
    raw_webhook: Mapping[str, Any] | None = None,
) -> Coverage:
    """Expand ``webhook``'s rules against ``resources``; judge ``namespaces``.

    ``namespaces`` are ``{"name", "labels"}`` dicts. Pass a ``ResourceTable``
    when computing many webhooks for one cluster. ``raw_webhook`` is only
    needed when ``webhook`` is already compiled (for its matchConditions).
    """
    if isinstance(webhook, CompiledWebhook):
        compiled, raw = webhook, raw_webhook or {}
    else:
        compiled, raw = compile_webhook(webhook), webhook
    return _coverage(
        compiled, raw, as_table(resources), namespaces, exclude_virtual_resources, {}
    )


def _coverage(
    compiled: CompiledWebhook,
    raw: Mapping[str, Any],
    table: ResourceTable,
    namespaces: Sequence[Mapping[str, Any]],
    exclude_virtual_resources: bool,
    verdict_cache: dict[CompiledSelector, list[NamespaceVerdict]],
) -> Coverage:
    direct = _direct_hits(compiled, table)
    hits = {key: dict(operations) for key, operations in direct.items()}
    conversions: dict[tuple[tuple[str, str, str, str], str], tuple[str, str, str]] = {}
    if not compiled.exact:
        _add_equivalent_hits(table, direct, hits, conversions)
    object_selector = compiled.object_selector
    strips_connect = not object_selector.is_empty
    covered: list[CoveredResource] = []
    exempt: list[CoveredResource] = []
    for key in sorted(hits, key=_display_order):
        row = table.by_key[key]
        by_operation = hits[key]
        operations = [op for op in OPERATION_ORDER if op in by_operation]
        if strips_connect:
            # M-5: CONNECT carries an options object without labels, which a
            # non-empty objectSelector never matches.
            operations = [op for op in operations if op != CONNECT]
        if not operations:
            continue
        via = tuple(op for op in operations if (key, op) in conversions)
        entry = CoveredResource(
            group=row.group,
            version=row.version,
            resource=row.resource,
            subresource=row.subresource,
            kind=row.kind,
            namespaced=row.namespaced,
            operations=tuple(operations),
            rule_index=min(by_operation[op] for op in operations),
            equivalent_operations=via,
            converted_to=conversions[(key, via[0])] if via else None,
        )
        if _is_exempt(row, exclude_virtual_resources):
            exempt.append(entry)
        else:
            covered.append(entry)
    selector = compiled.namespace_selector
    verdicts = verdict_cache.get(selector)
    if verdicts is None:
        # Many webhooks share a namespaceSelector ({} above all): judge the
        # namespaces once per distinct selector.
        verdicts = verdict_cache[selector] = _namespace_verdicts(selector, namespaces)
    conditions = raw.get("matchConditions")
    notes = _notes(compiled, strips_connect, bool(exempt), covered)
    return Coverage(
        webhook_name=compiled.name,
        resources=tuple(covered),
        exempt=tuple(exempt),
        selected_namespaces=tuple(v.name for v in verdicts if v.selected),
        excluded_namespaces=tuple(v for v in verdicts if not v.selected),
        namespace_selector_empty=selector.is_empty,
        namespace_selector_error=selector.error,
        object_selector_narrows=strips_connect,
        object_selector_error=object_selector.error,
        match_conditions_narrow=bool(conditions) and isinstance(conditions, list),
        notes=notes,
    )


def cluster_coverage(
    configurations: Iterable[Mapping[str, Any]] | PreparedConfigurations,
    *,
    resources: Sequence[ApiResource] | ResourceTable,
    namespaces: Sequence[Mapping[str, Any]],
    exclude_virtual_resources: bool = True,
) -> list[tuple[PreparedWebhook, Coverage]]:
    """Coverage of every webhook of every configuration, in call order."""
    table = as_table(resources)
    prepared = configurations
    if not isinstance(prepared, PreparedConfigurations):
        prepared = prepare_configurations(configurations)
    verdict_cache: dict[CompiledSelector, list[NamespaceVerdict]] = {}
    return [
        (
            hook,
            _coverage(
                hook.compiled,
                hook.webhook,
                table,
                namespaces,
                exclude_virtual_resources,
                verdict_cache,
            ),
        )
        for hook in prepared.webhooks
    ]


def _direct_hits(
    webhook: CompiledWebhook, table: ResourceTable
) -> dict[tuple[str, str, str, str], dict[str, int]]:
    """Per row key, per operation, the first rule naming the row itself."""
    hits: dict[tuple[str, str, str, str], dict[str, int]] = {}
    for index, rule in enumerate(webhook.rules):
        any_operation = WILDCARD in rule.operations
        for row in _rows_for_rule(rule, table):
            namespace = _SOME_NAMESPACE if row.namespaced else ""
            if not rule.scope_matches(row.gvr, namespace):
                continue
            by_operation = hits.setdefault(row.key, {})
            for operation in row.operations:
                if any_operation or operation in rule.operations:
                    by_operation.setdefault(operation, index)
    return {key: ops for key, ops in hits.items() if ops}


def _rows_for_rule(rule: CompiledRule, table: ResourceTable) -> Iterable[ApiResource]:
    """Rows whose group, version and resource/subresource a rule names (M-6)."""
    if WILDCARD in rule.groups:
        groups: Iterable[str] = table.by_group
    else:
        groups = [group for group in rule.groups if group in table.by_group]
    any_version = WILDCARD in rule.versions
    for group in groups:
        for row in table.by_group[group]:
            if not any_version and row.version not in rule.versions:
                continue
            if any(
                res in (WILDCARD, row.resource) and sub in (WILDCARD, row.subresource)
                for res, sub in rule.resources
            ):
                yield row


def _add_equivalent_hits(
    table: ResourceTable,
    direct: Mapping[tuple[str, str, str, str], Mapping[str, int]],
    hits: dict[tuple[str, str, str, str], dict[str, int]],
    conversions: dict[tuple[tuple[str, str, str, str], str], tuple[str, str, str]],
) -> None:
    """M-7: a request on X is covered when a rule names an equivalent of X.

    Earlier rules win, then the server's order of equivalents, as in
    ShouldCallHook; a direct hit on X itself always comes first.
    """
    candidates = {
        other.key for key in direct for other in table.equivalents.get(key, ())
    }
    for key in candidates:
        row = table.by_key[key]
        own = direct.get(key, {})
        for operation in row.operations:
            if operation in own:
                continue
            best: tuple[int, int, tuple[str, str, str]] | None = None
            for position, other in enumerate(table.equivalents.get(key, ())):
                index = direct.get(other.key, {}).get(operation)
                if index is not None and (best is None or (index, position) < best[:2]):
                    best = (index, position, other.gvr)
            if best is not None:
                hits.setdefault(key, {})[operation] = best[0]
                conversions[(key, operation)] = best[2]


def _is_exempt(row: ApiResource, exclude_virtual_resources: bool) -> bool:
    kind_group, _version, kind = row.gvk
    if kind_group == ADMISSION_GROUP and kind in EXEMPT_KINDS:
        return True
    return exclude_virtual_resources and (row.group, row.resource) in VIRTUAL_RESOURCES


def _namespace_verdicts(
    selector: CompiledSelector, namespaces: Sequence[Mapping[str, Any]]
) -> list[NamespaceVerdict]:
    verdicts = []
    for namespace in namespaces:
        name = str(namespace.get("name") or "")
        if selector.is_empty:
            reason = "the namespaceSelector is empty and selects every namespace"
            verdicts.append(NamespaceVerdict(name, True, reason))
            continue
        if selector.state == INVALID:
            reason = f"the namespaceSelector cannot be used ({selector.error})"
            verdicts.append(NamespaceVerdict(name, False, reason))
            continue
        labels = namespace.get("labels")
        result = match_selector(
            selector,
            labels if isinstance(labels, Mapping) else {},
            subject=f"namespace {name}",
        )
        verdicts.append(NamespaceVerdict(name, result.matched, result.detail))
    return verdicts


def _notes(
    webhook: CompiledWebhook,
    strips_connect: bool,
    has_exempt: bool,
    covered: Sequence[CoveredResource],
) -> tuple[str, ...]:
    notes = []
    if strips_connect:
        notes.append(
            "objectSelector: only objects whose labels match are intercepted; "
            "CONNECT is never intercepted (its options object has no labels)"
        )
    if not webhook.namespace_selector.is_empty and any(
        r.resource == "namespaces" and r.group == "" for r in covered
    ):
        notes.append(
            "namespaceSelector also applies to Namespace objects themselves, "
            "judged by their own labels (the new labels on CREATE and UPDATE)"
        )
    if has_exempt:
        notes.append(
            "some resources the rules name are never sent to webhooks "
            "(admission configuration kinds or virtual review resources)"
        )
    if webhook.namespace_selector.error or webhook.object_selector.error:
        notes.append(
            "a stored selector cannot be used: every request the rules match "
            "fails with an internal error"
        )
    return tuple(notes)


def _display_order(key: tuple[str, str, str, str]) -> tuple[str, str, str, str]:
    group, version, resource, subresource = key
    return (group, resource, subresource, version)


# --- who intercepts a request ------------------------------------------------------


@dataclass(frozen=True)
class PreparedWebhook:
    """One stored webhook with its configuration, compiled for matching."""

    configuration_kind: str
    configuration_name: str
    index: int
    webhook: Mapping[str, Any]
    compiled: CompiledWebhook
    failure_policy: str
    timeout_seconds: int
    reinvocation_policy: str | None

    @property
    def name(self) -> str:
        return self.compiled.name

    @property
    def max_calls(self) -> int:
        # A mutating webhook with reinvocationPolicy IfNeeded may be called a
        # second time after later mutating webhooks changed the object.
        return 2 if self.reinvocation_policy == "IfNeeded" else 1


@dataclass(frozen=True)
class PreparedConfigurations:
    """Webhooks of many configurations in the order the apiserver calls them."""

    webhooks: tuple[PreparedWebhook, ...]


def prepare_configurations(
    configurations: Iterable[Mapping[str, Any]],
) -> PreparedConfigurations:
    """Compile and order: all mutating first, then all validating; within a
    kind, configurations sorted by name, and each configuration's webhooks in
    list order. Why: the mutating admission plugin runs before the validating
    one, and the apiserver's webhook source (the configuration managers that
    build the webhook accessors, pkg/admission/configuration) sorts the
    configurations it lists by name before flattening their webhooks.

    Raises ValueError for an object of another kind (a programmer error).
    """
    by_kind: dict[str, list[Mapping[str, Any]]] = {MUTATING: [], VALIDATING: []}
    for configuration in configurations:
        kind = configuration.get("kind")
        if kind not in by_kind:
            raise ValueError(f"not a webhook configuration: kind {kind!r}")
        by_kind[kind].append(configuration)
    webhooks: list[PreparedWebhook] = []
    for kind in (MUTATING, VALIDATING):
        for configuration in sorted(by_kind[kind], key=_configuration_name):
            raw_webhooks = configuration.get("webhooks")
            for index, webhook in enumerate(
                raw_webhooks if isinstance(raw_webhooks, list) else ()
            ):
                if isinstance(webhook, Mapping):
                    webhooks.append(_prepare(kind, configuration, index, webhook))
    return PreparedConfigurations(tuple(webhooks))


@dataclass(frozen=True)
class InterceptionEntry:
    """One webhook's verdict for the request."""

    configuration_kind: str
    configuration_name: str
    webhook_name: str
    webhook_index: int
    match: MatchResult
    # call | skip | reject | unknown, or "not evaluated" without a sample.
    condition_decision: str
    conditions: ConditionsResult | None
    failure_policy: str
    timeout_seconds: int
    reinvocation_policy: str | None
    max_calls: int


@dataclass(frozen=True)
class Interception:
    """The webhooks a request meets, in call order."""

    # Webhooks whose selectors and rules match, in call order; their
    # condition_decision says whether they are then called.
    webhooks: tuple[InterceptionEntry, ...]
    # The rest, with MatchResult.reason saying why.
    not_matching: tuple[InterceptionEntry, ...]
    total_worst_case_seconds: int
    worst_case_note: str
    # Entries that make the apiserver reject the request outright: a missing
    # namespace, an unusable selector, a matchCondition error under Fail.
    rejected_by: tuple[InterceptionEntry, ...]

    @property
    def called(self) -> tuple[InterceptionEntry, ...]:
        """Matched webhooks not skipped or rejected by their matchConditions."""
        return tuple(
            e for e in self.webhooks if e.condition_decision not in (SKIP, REJECT)
        )


def who_intercepts(
    configurations: Iterable[Mapping[str, Any]] | PreparedConfigurations,
    request: Mapping[str, Any],
    *,
    sample_object: Any = None,
    old_object: Any = None,
    user: Mapping[str, Any] | None = None,
    resources: Sequence[ApiResource] | ResourceTable | None = None,
    namespace_object: Any = None,
    exclude_virtual_resources: bool = True,
) -> Interception:
    """The webhooks kube-apiserver would call for ``request`` (matching's dict).

    matchConditions are evaluated when ``sample_object`` or ``old_object`` is
    given; ``user`` is ``{username, uid, groups, extra}``. When ``request``
    has no ``equivalent_resources`` and ``resources`` is given, they are
    derived from it.
    """
    prepared = configurations
    if not isinstance(prepared, PreparedConfigurations):
        prepared = prepare_configurations(configurations)
    if resources is not None and "equivalent_resources" not in request:
        request = {
            **request,
            "equivalent_resources": equivalent_resources(
                resources,
                str(request.get("group") or ""),
                str(request.get("version") or ""),
                str(request.get("resource") or ""),
                str(request.get("subresource") or ""),
            ),
        }
    attributes = read_request(request)
    evaluate_conditions = sample_object is not None or old_object is not None
    matched: list[InterceptionEntry] = []
    not_matching: list[InterceptionEntry] = []
    for hook in prepared.webhooks:
        result = evaluate_compiled(
            hook.compiled,
            attributes,
            exclude_virtual_resources=exclude_virtual_resources,
        )
        if not result.matched:
            not_matching.append(_entry(hook, result, NOT_EVALUATED, None))
            continue
        conditions = None
        decision = NOT_EVALUATED
        if not hook.webhook.get("matchConditions"):
            decision = CALL
        elif evaluate_conditions:
            conditions = evaluate_match_conditions(
                hook.webhook,
                request=cel_request(
                    request,
                    user=user,
                    converted_to=result.converted_to,
                    converted_kind=result.converted_kind,
                ),
                object=sample_object,
                old_object=old_object,
                namespace_object=namespace_object,
            )
            decision = conditions.decision
        matched.append(_entry(hook, result, decision, conditions))
    counted = [
        e for e in matched if e.condition_decision in (CALL, UNKNOWN, NOT_EVALUATED)
    ]
    total = sum(e.timeout_seconds * e.max_calls for e in counted)
    rejected = [e for e in not_matching if e.match.fails_request] + [
        e for e in matched if e.condition_decision == REJECT
    ]
    return Interception(
        webhooks=tuple(matched),
        not_matching=tuple(not_matching),
        total_worst_case_seconds=total,
        worst_case_note=_worst_case_note(counted),
        rejected_by=tuple(rejected),
    )


def _prepare(
    kind: str, configuration: Mapping[str, Any], index: int, webhook: Mapping[str, Any]
) -> PreparedWebhook:
    timeout = webhook.get("timeoutSeconds")
    if not isinstance(timeout, int) or isinstance(timeout, bool):
        timeout = DEFAULT_TIMEOUT_SECONDS
    reinvocation = webhook.get("reinvocationPolicy")
    if kind == MUTATING and reinvocation is None:
        reinvocation = "Never"  # D-2
    return PreparedWebhook(
        configuration_kind=kind,
        configuration_name=_configuration_name(configuration),
        index=index,
        webhook=webhook,
        compiled=compile_webhook(webhook),
        failure_policy=str(webhook.get("failurePolicy") or "Fail"),  # D-1
        timeout_seconds=timeout,
        reinvocation_policy=reinvocation if kind == MUTATING else None,
    )


def _configuration_name(configuration: Mapping[str, Any]) -> str:
    metadata = configuration.get("metadata")
    return (
        str((metadata or {}).get("name") or "") if isinstance(metadata, Mapping) else ""
    )


def _entry(
    hook: PreparedWebhook,
    result: MatchResult,
    decision: str,
    conditions: ConditionsResult | None,
) -> InterceptionEntry:
    return InterceptionEntry(
        configuration_kind=hook.configuration_kind,
        configuration_name=hook.configuration_name,
        webhook_name=hook.name,
        webhook_index=hook.index,
        match=result,
        condition_decision=decision,
        conditions=conditions,
        failure_policy=hook.failure_policy,
        timeout_seconds=hook.timeout_seconds,
        reinvocation_policy=hook.reinvocation_policy,
        max_calls=hook.max_calls,
    )


def _worst_case_note(counted: Sequence[InterceptionEntry]) -> str:
    text = (
        "sum of timeoutSeconds of the webhooks that would (or might) be called; "
        "validating webhooks run in parallel, so this overstates their share"
    )
    twice = [e.webhook_name for e in counted if e.max_calls > 1]
    if twice:
        text += (
            "; counted twice because reinvocationPolicy IfNeeded may call them "
            "again: " + ", ".join(twice)
        )
    return text
