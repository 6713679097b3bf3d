"""The coverage explorer: which webhooks would the apiserver call for this request?

The form (``coverage_forms.CoverageExplorerForm``) reads the question from
the query string; this module turns it into matching's request dict, built
from the cluster's discovery and namespaces, runs ``who_intercepts`` on the
cluster's cached prepared configurations, and words why each webhook is, or
is not, called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhooks_ui.coverage_forms import CoverageExplorerForm
from webhooks_ui.domain.coverage import (
    NOT_EVALUATED,
    Interception,
    InterceptionEntry,
    PreparedWebhook,
    who_intercepts,
)
from webhooks_ui.domain.discovery import CONNECT, CREATE, DELETE, UPDATE, ApiResource
from webhooks_ui.domain.explain import describe_rule
from webhooks_ui.domain.label_selectors import match_selector
from webhooks_ui.models import Cluster
from webhooks_ui.review.coverage import ClusterIndex, cluster_index, resource_label


@dataclass(frozen=True)
class Reason:
    """One line of "why": what was checked and what it found."""

    check: str
    text: str


@dataclass(frozen=True)
class ExplainedEntry:
    """A webhook the request meets, with its configuration and why."""

    entry: InterceptionEntry
    reasons: tuple[Reason, ...]
    # "called", "skipped", "rejects", "may be called" (conditions unknown)
    # or "called unless its matchConditions say no" (not evaluated).
    verdict: str

    @property
    def anchor(self) -> str:
        return f"webhook-{self.entry.webhook_index}"

    @property
    def fails_closed(self) -> bool:
        return self.entry.failure_policy == "Fail"


@dataclass(frozen=True)
class Question:
    """The request asked about, as built for matching."""

    resource: ApiResource
    operation: str
    namespace: str
    namespace_labels: Mapping[str, str] | None
    object_labels: Mapping[str, str]
    request: Mapping[str, Any]
    sample_given: bool

    @property
    def namespace_missing(self) -> bool:
        return bool(self.namespace) and self.namespace_labels is None

    @property
    def summary(self) -> str:
        where = f" in namespace {self.namespace}" if self.namespace else ""
        if self.resource.resource == "namespaces" and not self.resource.subresource:
            where = f" named {self.namespace}" if self.namespace else ""
        return f"{self.operation} {resource_label(self.resource)}{where}"


@dataclass
class ExplorerPage:
    form: CoverageExplorerForm
    index: ClusterIndex | None
    cluster_name: str
    question: Question | None = None
    interception: Interception | None = None
    matched: tuple[ExplainedEntry, ...] = ()
    not_matching: tuple[ExplainedEntry, ...] = ()

    @property
    def resource_options(self) -> list[tuple[str, ApiResource]]:
        return self.index.resource_options if self.index else []

    @property
    def namespace_options(self) -> list[str]:
        return [ns["name"] for ns in self.index.namespaces] if self.index else []

    @property
    def total(self) -> int:
        return len(self.matched) + len(self.not_matching)


def coverage_explorer_build(
    *, clusters: Sequence[Cluster], params: Mapping[str, Any]
) -> ExplorerPage:
    """The form bound to ``params`` (unbound without a cluster) and, when the
    question is complete and valid, who intercepts it."""
    clusters = list(clusters)
    bound = bool(params.get("cluster"))
    initial = {"cluster": clusters[0].name} if clusters else {}
    form = CoverageExplorerForm(
        params if bound else None,
        initial=initial,
        clusters=clusters,
        index_for=cluster_index,
    )
    if not bound:
        index = cluster_index(clusters[0]) if clusters else None
        return ExplorerPage(form, index, initial.get("cluster", ""))
    valid = form.is_valid()
    page = ExplorerPage(form, form.index, str(params.get("cluster") or ""))
    if not valid or "api_resource" not in form.cleaned_data or form.index is None:
        return page
    data = form.cleaned_data
    question = _question(data, form.index)
    sample = data.get("sample")
    new_object, old_object = _objects(question.operation, sample)
    interception = who_intercepts(
        form.index.prepared,
        question.request,
        sample_object=new_object,
        old_object=old_object,
        user=_user(data),
        resources=form.index.table,
        namespace_object=_namespace_object(question),
    )
    hooks = {
        (h.configuration_kind, h.configuration_name, h.index): h
        for h in form.index.prepared.webhooks
    }
    page.question = question
    page.interception = interception
    page.matched = tuple(
        _explain(entry, hooks[_key(entry)], question) for entry in interception.webhooks
    )
    page.not_matching = tuple(
        ExplainedEntry(entry, (Reason(entry.match.reason, entry.match.detail),), "")
        for entry in interception.not_matching
    )
    return page


# --- the request dict ------------------------------------------------------------


def _question(data: Mapping[str, Any], index: ClusterIndex) -> Question:
    row: ApiResource = data["api_resource"]
    operation = data["operation"]
    sample = data.get("sample")
    metadata = (sample or {}).get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    is_namespace = row.resource == "namespaces" and row.group == ""
    namespace = str(data.get("namespace") or "")
    name = str(metadata.get("name") or "")
    if is_namespace:
        # A request on a Namespace carries the namespace's own name.
        namespace = namespace or name
        name = name or namespace
    elif not row.namespaced:
        namespace = ""
    labels = metadata.get("labels")
    object_labels = {
        **(
            {str(k): str(v) for k, v in labels.items()}
            if isinstance(labels, dict)
            else {}
        ),
        **data.get("labels", {}),
    }
    namespace_labels = index.namespace_labels.get(namespace) if namespace else None
    kind_group, kind_version, kind = row.gvk
    request = {
        "operation": operation,
        "group": row.group,
        "version": row.version,
        "resource": row.resource,
        "subresource": row.subresource,
        "kind_group": kind_group,
        "kind_version": kind_version,
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "cluster_scoped": not row.namespaced,
        "namespace_labels": namespace_labels,
        # DELETE has no new object; CREATE no old one (the sample is both).
        "object_labels": None if operation == DELETE else object_labels,
        "old_object_labels": object_labels if operation in (UPDATE, DELETE) else None,
    }
    return Question(
        resource=row,
        operation=operation,
        namespace=namespace,
        namespace_labels=namespace_labels,
        object_labels=object_labels,
        request=request,
        sample_given=sample is not None,
    )


def _objects(operation: str, sample: Any) -> tuple[Any, Any]:
    """(object, oldObject) for matchConditions: the sample stands for both."""
    if sample is None:
        return None, None
    if operation in (CREATE, CONNECT):
        return sample, None
    if operation == DELETE:
        return None, sample
    return sample, sample


def _user(data: Mapping[str, Any]) -> dict[str, Any] | None:
    if not data.get("username") and not data.get("groups"):
        return None
    return {"username": data.get("username", ""), "groups": data.get("groups", [])}


def _namespace_object(question: Question) -> dict[str, Any] | None:
    if not question.namespace or question.namespace_labels is None:
        return None
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": question.namespace,
            "labels": dict(question.namespace_labels),
        },
    }


# --- why ---------------------------------------------------------------------------


def _key(entry: InterceptionEntry) -> tuple[str, str, int]:
    return (entry.configuration_kind, entry.configuration_name, entry.webhook_index)


def _explain(
    entry: InterceptionEntry, hook: PreparedWebhook, question: Question
) -> ExplainedEntry:
    rules = hook.webhook.get("rules")
    index = entry.match.matched_rule_index
    rule = None
    if isinstance(rules, list) and index is not None and index < len(rules):
        rule = rules[index] if isinstance(rules[index], Mapping) else None
    detail = entry.match.detail
    if rule is not None:
        detail = f"{detail} — the rule covers {describe_rule(rule)}"
    reasons = [Reason("rule", detail)]
    if rule is not None:
        reasons.append(Reason("scope", _scope_reason(rule, question)))
    reasons.append(Reason("namespaceSelector", _namespace_reason(hook, question)))
    reasons.append(Reason("objectSelector", _object_reason(hook, question)))
    reasons.append(Reason("matchConditions", _conditions_reason(entry, question)))
    return ExplainedEntry(entry, tuple(reasons), _verdict(entry))


def _scope_reason(rule: Mapping[str, Any], question: Question) -> str:
    scope = str(rule.get("scope") or "*")
    if question.resource.resource == "namespaces" and question.resource.group == "":
        request = "a Namespace, which counts as cluster-scoped"
    elif question.namespace:
        request = "a namespaced request"
    else:
        request = "a cluster-scoped request"
    allowed = {
        "*": "allows both namespaced and cluster-scoped requests",
        "Namespaced": "allows namespaced requests only",
        "Cluster": "allows cluster-scoped requests only",
    }.get(scope, "")
    return f"scope {scope!r} {allowed}: this is {request}"


def _namespace_reason(hook: PreparedWebhook, question: Question) -> str:
    selector = hook.compiled.namespace_selector
    request = question.request
    is_namespace = question.resource.resource == "namespaces"
    if not question.namespace and not is_namespace:
        return "cluster-scoped requests are not filtered by namespace"
    if selector.is_empty:
        return "empty: matches every namespace"
    if (
        is_namespace
        and not question.resource.subresource
        and question.operation
        in (
            CREATE,
            UPDATE,
        )
    ):
        subject = f"the new namespace {question.namespace}".rstrip()
        return match_selector(selector, question.object_labels, subject=subject).detail
    return match_selector(
        selector,
        request.get("namespace_labels") or {},
        subject=f"namespace {question.namespace}",
    ).detail


def _object_reason(hook: PreparedWebhook, question: Question) -> str:
    selector = hook.compiled.object_selector
    if selector.is_empty:
        return "empty: matches every object"
    request = question.request
    new = match_selector(
        selector, request.get("object_labels"), subject="the new object"
    )
    if new.matched:
        return new.detail
    return match_selector(
        selector, request.get("old_object_labels"), subject="the old object"
    ).detail


def _conditions_reason(entry: InterceptionEntry, question: Question) -> str:
    if entry.conditions is not None:
        parts = [entry.conditions.detail]
        parts += [
            f"{c.name}: {c.outcome}" + (f" ({c.detail})" if c.detail else "")
            for c in entry.conditions.conditions
        ]
        return "; ".join(parts)
    if entry.condition_decision == NOT_EVALUATED:
        return (
            "not evaluated: paste a sample object to run them (the webhook is "
            "called only if every condition is true)"
        )
    return "none: nothing narrows the call further"


_VERDICTS = {
    "call": "called",
    "skip": "skipped",
    "reject": "rejects the request",
    "unknown": "may be called",
    NOT_EVALUATED: "called if its matchConditions hold",
}


def _verdict(entry: InterceptionEntry) -> str:
    return _VERDICTS.get(entry.condition_decision, entry.condition_decision)
