"""Label selector matching exactly as apimachinery does it (spec M-9).

``metav1.LabelSelectorAsSelector`` turns a stored selector into requirements
and ``labels.Requirement.Matches`` evaluates them. A selector is compiled
once (webhooks are matched against many requests) and can then say, in plain
English, why a label set matched or not, for the explorer pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from webhooks_ui.domain.explain import describe_selector
from webhooks_ui.domain.labels import is_qualified_name, is_valid_label_value

IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"
OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST)

NOTHING = "nothing"
EVERYTHING = "everything"
REQUIREMENTS = "requirements"
INVALID = "invalid"


@dataclass(frozen=True)
class Requirement:
    """One converted requirement; matchLabels pairs become single-value ``In``."""

    key: str
    operator: str
    values: frozenset[str]
    # Kept for wording only: matchLabels is Go's ``Equals``, which matches
    # exactly like a single-value ``In``.
    from_match_labels: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        # M-9: an absent key never satisfies In (even with "" listed) and
        # always satisfies NotIn.
        if self.operator == IN:
            return self.key in labels and labels[self.key] in self.values
        if self.operator == NOT_IN:
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == EXISTS:
            return self.key in labels
        return self.key not in labels

    def explain_failure(self, labels: Mapping[str, str], subject: str) -> str:
        """Why ``labels`` fail this requirement, e.g. for a detail line."""
        present = self.key in labels
        shown = f"{self.key}={_quote(labels[self.key])}" if present else ""
        wanted = ", ".join(_quote(v) for v in sorted(self.values))
        if self.from_match_labels:
            expected = f"{self.key}={wanted}"
            if present:
                return f"{subject} has label {shown}, matchLabels requires {expected}"
            return f"{subject} has no label {self.key}, matchLabels requires {expected}"
        if self.operator == IN:
            if present:
                return f"{subject} has label {shown}, not in ({wanted}) required by In"
            return f"{subject} has no label {self.key}, required by In ({wanted})"
        if self.operator == NOT_IN:
            return f"{subject} has label {shown}, excluded by NotIn ({wanted})"
        if self.operator == EXISTS:
            return f"{subject} has no label {self.key}, required by Exists"
        return f"{subject} has label {shown}, excluded by DoesNotExist"


@dataclass(frozen=True)
class CompiledSelector:
    """A stored selector converted once; ``state`` is one of the constants above."""

    state: str
    requirements: tuple[Requirement, ...] = ()
    # Why the apiserver could not convert the selector (state INVALID).
    error: str | None = None
    # The stored selector, for wording only (worded lazily: most compiled
    # selectors are only ever matched).
    source: Any = field(default=None, compare=False, repr=False)
    noun: str = field(default="objects", compare=False, repr=False)

    @cached_property
    def description(self) -> str:
        return describe_selector(self.source, noun=self.noun)

    @property
    def is_empty(self) -> bool:
        """Go's ``selector.Empty()``: matches everything without looking at labels."""
        return self.state == EVERYTHING

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Selector.Matches``; an unconvertible selector matches nothing."""
        if self.state == EVERYTHING:
            return True
        if self.state != REQUIREMENTS:
            return False
        return all(requirement.matches(labels) for requirement in self.requirements)


@dataclass(frozen=True)
class SelectorMatch:
    """Whether a label set matched, and why, in plain English."""

    matched: bool
    detail: str
    error: str | None = None


def compile_selector(selector: Any, *, noun: str = "objects") -> CompiledSelector:
    """``LabelSelectorAsSelector``: null → nothing, ``{}`` → everything (M-9).

    Conversion fails where apimachinery's ``NewRequirement`` fails: a bad key,
    a bad value (possible in storage through the V-43 relaxation), a wrong
    operator, or a values list of the wrong size for the operator.
    """
    if selector is None:
        return CompiledSelector(NOTHING, source=selector, noun=noun)
    if not isinstance(selector, Mapping):
        return _invalid("the selector is not an object", selector, noun)
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping) or not isinstance(expressions, list):
        return _invalid("matchLabels or matchExpressions is malformed", selector, noun)
    if not match_labels and not expressions:
        return CompiledSelector(EVERYTHING, source=selector, noun=noun)
    requirements: list[Requirement] = []
    for key, value in match_labels.items():
        error = _key_error(key) or _value_error(value)
        if error:
            return _invalid(error, selector, noun)
        requirements.append(Requirement(key, IN, frozenset({value}), True))
    for expression in expressions:
        requirement = _requirement(expression)
        if isinstance(requirement, str):
            return _invalid(requirement, selector, noun)
        requirements.append(requirement)
    return CompiledSelector(REQUIREMENTS, tuple(requirements), None, selector, noun)


def selector_matches(selector: Any, labels: Mapping[str, str]) -> bool:
    """True when ``labels`` satisfy ``selector`` (a stored dict or compiled)."""
    return _compiled(selector).matches(labels)


def match_selector(
    selector: Any, labels: Mapping[str, str] | None, *, subject: str = "the object"
) -> SelectorMatch:
    """Match and explain. ``labels`` None means there is nothing to look at."""
    compiled = _compiled(selector)
    if compiled.state == INVALID:
        return SelectorMatch(
            False, f"the selector cannot be used: {compiled.error}", compiled.error
        )
    if compiled.state == NOTHING:
        return SelectorMatch(False, "a null selector matches nothing")
    if compiled.state == EVERYTHING:
        return SelectorMatch(True, "the selector is empty and matches everything")
    if labels is None:
        return SelectorMatch(False, f"there is no {_bare(subject)} to look at")
    for requirement in compiled.requirements:
        if not requirement.matches(labels):
            return SelectorMatch(False, requirement.explain_failure(labels, subject))
    return SelectorMatch(True, f"{subject} is selected: {compiled.description}")


def _compiled(selector: Any) -> CompiledSelector:
    if isinstance(selector, CompiledSelector):
        return selector
    return compile_selector(selector)


def _requirement(expression: Any) -> Requirement | str:
    """A Requirement, or the conversion error as text."""
    if not isinstance(expression, Mapping):
        return "a matchExpressions entry is not an object"
    key = expression.get("key")
    operator = expression.get("operator")
    values = expression.get("values") or []
    if operator not in OPERATORS:
        return f"{operator!r} is not a valid label selector operator"
    error = _key_error(key)
    if error:
        return error
    if not isinstance(values, list):
        return f"values of {key!r} is not a list"
    if operator in (IN, NOT_IN) and not values:
        return "for 'in', 'notin' operators, values set can't be empty"
    if operator in (EXISTS, DOES_NOT_EXIST) and values:
        return "values set must be empty for exists and does not exist"
    for value in values:
        error = _value_error(value)
        if error:
            return error
    return Requirement(key, operator, frozenset(values))


def _key_error(key: Any) -> str | None:
    if not isinstance(key, str):
        return f"label key {key!r} is not a string"
    messages = is_qualified_name(key)
    if messages:
        return f"invalid label key {_quote(key)}: {'; '.join(messages)}"
    return None


def _value_error(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"label value {value!r} is not a string"
    messages = is_valid_label_value(value)
    if messages:
        return f"invalid label value {_quote(value)}: {'; '.join(messages)}"
    return None


def _invalid(error: str, selector: Any, noun: str) -> CompiledSelector:
    return CompiledSelector(INVALID, error=error, source=selector, noun=noun)


def _quote(value: str) -> str:
    return value if value else '""'


def _bare(subject: str) -> str:
    return subject[4:] if subject.startswith("the ") else subject
