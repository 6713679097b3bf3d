"""Evaluating a webhook's matchConditions against a sample request (spec M-8).

Uses the ``cel`` runtime (common-expression-language) with the variables the
apiserver binds: ``object``, ``oldObject`` (null when absent), ``request``
and, when given, ``namespaceObject``. Two things cannot be decided offline
and come back as an explicit "unknown" rather than a guess:

* expressions using ``authorizer`` (they ask the cluster's authorizer);
* syntax cel-go accepts but the Python runtime does not (optional fields
  ``a.?b``, escaped field names), once ``cel.check_expression`` has accepted
  the expression.

Every exception the binding raises (Rust panics included) becomes that
condition's error, as cel-go's evaluation errors do. Not modelled: cel-go's
runtime cost limit (an expensive expression just runs) and Kubernetes' CEL
library extensions beyond the runtime's standard library (a call to one of
them errors here).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cel as cel_lib

from webhooks_ui.domain.cel import check_expression, tokenize

TRUE = "true"
FALSE = "false"
ERROR = "error"
UNKNOWN = "unknown"

CALL = "call"
SKIP = "skip"
REJECT = "reject"

AUTHORIZER_UNKNOWN = "unknown: authorizer checks cannot be evaluated offline"
# The Rust parser recurses per nesting level; cel.check_expression parses
# anything longer on a big-stack thread, we do not run it at all.
MAX_EVALUATED_LENGTH = 10_000


@dataclass(frozen=True)
class ConditionOutcome:
    """One condition: ``outcome`` is true, false, error or unknown."""

    name: str
    expression: str
    outcome: str
    detail: str = ""


@dataclass(frozen=True)
class ConditionsResult:
    """All conditions of a webhook and what the apiserver would do."""

    decision: str  # call | skip | reject | unknown
    conditions: tuple[ConditionOutcome, ...]
    detail: str


def evaluate_match_conditions(
    webhook: Mapping[str, Any],
    *,
    request: Mapping[str, Any],
    object: Any = None,  # noqa: A002 - the CEL variable's name
    old_object: Any = None,
    namespace_object: Any = None,
) -> ConditionsResult:
    """M-8: any false → skip; all true → call; an error (none false) →
    reject under failurePolicy Fail, skip under Ignore. An unknown with no
    false makes the decision unknown (it might have been false).

    ``request`` is the CEL ``request`` variable (see ``cel_request``).
    """
    raw = webhook.get("matchConditions") or []
    conditions = tuple(
        evaluate_condition(
            condition if isinstance(condition, Mapping) else {},
            {
                "object": object,
                "oldObject": old_object,
                "request": dict(request),
                "namespaceObject": namespace_object,
            },
        )
        for condition in (raw if isinstance(raw, list) else [])
    )
    failure_policy = webhook.get("failurePolicy") or "Fail"
    return _decide(conditions, failure_policy)


def evaluate_condition(
    condition: Mapping[str, Any], variables: Mapping[str, Any]
) -> ConditionOutcome:
    name = str(condition.get("name") or "")
    expression = str(condition.get("expression") or "").strip()
    if not expression:
        return ConditionOutcome(name, expression, ERROR, "the expression is empty")
    if _uses_authorizer(expression):
        return ConditionOutcome(name, expression, UNKNOWN, AUTHORIZER_UNKNOWN)
    if len(expression) > MAX_EVALUATED_LENGTH:
        return ConditionOutcome(
            name,
            expression,
            UNKNOWN,
            "unknown: the expression is too long to evaluate offline",
        )
    problem = check_expression(expression)
    if problem is not None:
        return ConditionOutcome(name, expression, ERROR, problem)
    program = _program(expression)
    if isinstance(program, str):
        # check_expression accepted it: cel-go syntax the runtime lacks.
        detail = "unknown: this CEL syntax cannot be evaluated offline (" + (
            program.splitlines()[0] + ")"
        )
        return ConditionOutcome(name, expression, UNKNOWN, detail)
    try:
        value = program.execute(dict(variables))
    except BaseException as error:  # noqa: BLE001 - Rust panics are BaseException
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        return ConditionOutcome(name, expression, ERROR, _error_text(error))
    if value is True:
        return ConditionOutcome(name, expression, TRUE)
    if value is False:
        return ConditionOutcome(name, expression, FALSE)
    return ConditionOutcome(
        name,
        expression,
        ERROR,
        f"must evaluate to bool but got {type(value).__name__}",
    )


def cel_request(
    request: Mapping[str, Any],
    *,
    user: Mapping[str, Any] | None = None,
    converted_to: tuple[str, str, str] | None = None,
    converted_kind: tuple[str, str, str] | None = None,
    dry_run: bool = False,
    options: Any = None,
) -> dict[str, Any]:
    """The CEL ``request`` variable for a matching request dict.

    When the webhook matched through an equivalent resource the request is
    converted: ``kind``/``resource`` name the converted ones and
    ``requestKind``/``requestResource`` the original (M-7).
    """
    group = str(request.get("group") or "")
    version = str(request.get("version") or "")
    resource = str(request.get("resource") or "")
    original_resource = {"group": group, "version": version, "resource": resource}
    original_kind = {
        "group": str(request.get("kind_group", group) or ""),
        "version": str(request.get("kind_version", version) or ""),
        "kind": str(request.get("kind") or ""),
    }
    resource_value = dict(original_resource)
    kind_value = dict(original_kind)
    if converted_to is not None:
        resource_value = dict(
            zip(("group", "version", "resource"), converted_to, strict=True)
        )
    if converted_kind is not None:
        kind_value = dict(
            zip(("group", "version", "kind"), converted_kind, strict=True)
        )
    user = user or {}
    subresource = str(request.get("subresource") or "")
    return {
        "uid": str(request.get("uid") or ""),
        "kind": kind_value,
        "resource": resource_value,
        "subResource": subresource,
        "requestKind": original_kind,
        "requestResource": original_resource,
        "requestSubResource": subresource,
        "name": str(request.get("name") or ""),
        "namespace": str(request.get("namespace") or ""),
        "operation": str(request.get("operation") or ""),
        "userInfo": {
            "username": str(user.get("username") or ""),
            "uid": str(user.get("uid") or ""),
            "groups": list(user.get("groups") or []),
            "extra": dict(user.get("extra") or {}),
        },
        "dryRun": dry_run,
        "options": options,
    }


def _decide(
    conditions: tuple[ConditionOutcome, ...], failure_policy: str
) -> ConditionsResult:
    if not conditions:
        return ConditionsResult(CALL, conditions, "no matchConditions")
    false = [c for c in conditions if c.outcome == FALSE]
    if false:
        return ConditionsResult(
            SKIP, conditions, f"condition {false[0].name!r} is false: webhook skipped"
        )
    unknown = [c for c in conditions if c.outcome == UNKNOWN]
    if unknown:
        return ConditionsResult(
            UNKNOWN,
            conditions,
            f"condition {unknown[0].name!r} cannot be evaluated offline "
            "and no condition is false",
        )
    errors = [c for c in conditions if c.outcome == ERROR]
    if errors:
        first = errors[0].name
        if failure_policy == "Ignore":
            return ConditionsResult(
                SKIP,
                conditions,
                f"condition {first!r} fails to evaluate; failurePolicy Ignore "
                "skips the webhook",
            )
        return ConditionsResult(
            REJECT,
            conditions,
            f"condition {first!r} fails to evaluate; failurePolicy Fail "
            "rejects the request",
        )
    return ConditionsResult(CALL, conditions, "every condition is true")


@functools.lru_cache(maxsize=1024)
def _program(expression: str) -> Any:
    """A compiled program, or the runtime's parse error as text."""
    try:
        return cel_lib.compile(expression)
    except BaseException as error:  # noqa: BLE001 - Rust panics are BaseException
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        return str(error) or type(error).__name__


def _uses_authorizer(expression: str) -> bool:
    tokens = tokenize(expression)
    if tokens is None:
        return "authorizer" in expression
    previous = None
    for token in tokens:
        is_root = previous is None or previous.text != "."
        if token.kind == "ident" and token.text == "authorizer" and is_root:
            return True
        previous = token
    return False


def _error_text(error: BaseException) -> str:
    if isinstance(error, KeyError):
        return f"no such key: {error.args[0] if error.args else ''}"
    return str(error) or type(error).__name__
