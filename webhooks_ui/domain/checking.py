"""Checking manifests offline, as a CI pipeline would before ``kubectl apply``.

Takes objects already loaded from a manifest, converts legacy v1beta1 webhook
configurations (reporting the defaults that made explicit), validates every
webhook configuration as the API server would on create, and skips other
kinds. Shared by the ``check_webhooks`` command and the REST API, so both give
the same verdict in the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webhooks_ui.domain import risk, v1beta1
from webhooks_ui.domain.errors import FieldError, invalid_message
from webhooks_ui.domain.kinds import KINDS, is_webhook_configuration
from webhooks_ui.domain.manifest import LoadedObject, ManifestError
from webhooks_ui.domain.validation import validate

Validator = Callable[[dict[str, Any]], list[FieldError]]

# Warning codes of our own; risk findings use their check id as the code and
# carry a severity, which ``--fail-on`` compares against.
V1BETA1_REMOVED = "v1beta1-removed"
V1BETA1_DEFAULT = "v1beta1-default"


@dataclass(frozen=True)
class CheckWarning:
    """Something worth a reviewer's attention that does not make an object invalid."""

    code: str
    field: str
    message: str
    # critical / warning / info for risk findings; "" for the others.
    severity: str = ""

    def as_dict(self) -> dict[str, str]:
        return {
            "code": self.code,
            "severity": self.severity,
            "field": self.field,
            "message": self.message,
        }


@dataclass(frozen=True)
class Position:
    """Where an object sits in its input, for people and for machines."""

    source: str
    document: int  # 1-based YAML document (or JSON value) in the source
    item: int | None  # 0-based index in a List's items, or None
    line: int | None  # 1-based start line where known
    # More than one document in the source: name the document in labels.
    multi_document: bool = False

    @property
    def label(self) -> str:
        """``file.yaml``, ``file.yaml:doc#2`` or ``file.yaml:doc#1:items[3]``."""
        parts = [self.source]
        if self.multi_document:
            parts.append(f"doc#{self.document}")
        if self.item is not None:
            parts.append(f"items[{self.item}]")
        return ":".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "document": self.document,
            "item": self.item,
            "line": self.line,
        }


@dataclass(frozen=True)
class ObjectCheck:
    """The verdict on one webhook configuration."""

    position: Position
    api_version: str
    kind: str
    name: str
    errors: tuple[FieldError, ...]
    warnings: tuple[CheckWarning, ...]

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def message(self) -> str | None:
        """The apiserver's 422 message, or None when the object is valid."""
        if self.valid:
            return None
        return invalid_message(self.kind, self.name, list(self.errors))

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.position.as_dict(),
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "valid": self.valid,
            "message": self.message,
            "errors": [
                {"field": e.field, "reason": e.reason, "message": e.message}
                for e in self.errors
            ],
            "warnings": [warning.as_dict() for warning in self.warnings],
        }


@dataclass(frozen=True)
class SkippedObject:
    """An object in the input that is not a webhook configuration this tool checks."""

    position: Position
    api_version: str
    kind: str
    name: str
    reason: str

    @property
    def looks_like_webhook_configuration(self) -> bool:
        """A webhook kind with an apiVersion we do not know: probably a typo."""
        return self.kind in KINDS

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.position.as_dict(),
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Unreadable:
    """An input that could not be read or parsed at all."""

    source: str
    message: str
    line: int | None = None
    column: int | None = None

    @classmethod
    def from_error(cls, error: ManifestError) -> Unreadable:
        return cls(error.source, error.message, error.line, error.column)

    def __str__(self) -> str:
        """``file.yaml:3:5: message``: the form editors and CI logs link to."""
        error = ManifestError(
            self.message, source=self.source, line=self.line, column=self.column
        )
        return str(error)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "text": str(self),
        }


@dataclass(frozen=True)
class SourceCheck:
    """Everything found in one input (a file or stdin)."""

    source: str
    checked: tuple[ObjectCheck, ...]
    skipped: tuple[SkippedObject, ...]


@dataclass(frozen=True)
class CheckReport:
    """The outcome of a whole run over many inputs."""

    sources: tuple[SourceCheck, ...]
    unreadable: tuple[Unreadable, ...]
    # A risk finding at this severity or worse fails the run (None: never).
    fail_on: str | None = None

    @property
    def checked(self) -> list[ObjectCheck]:
        return [check for source in self.sources for check in source.checked]

    @property
    def skipped(self) -> list[SkippedObject]:
        return [skip for source in self.sources for skip in source.skipped]

    @property
    def invalid(self) -> list[ObjectCheck]:
        return [check for check in self.checked if not check.valid]

    @property
    def failing_findings(self) -> list[CheckWarning]:
        """Risk findings at or above ``fail_on``."""
        if self.fail_on is None:
            return []
        return [
            warning
            for check in self.checked
            for warning in check.warnings
            if warning.severity
            and risk.severity_at_least(warning.severity, self.fail_on)
        ]

    @property
    def exit_code(self) -> int:
        """0 all valid, 1 any invalid (or a finding at ``fail_on`` or worse),
        2 any input unreadable (CI-friendly)."""
        if self.unreadable:
            return 2
        return 1 if self.invalid or self.failing_findings else 0

    def summary(self) -> dict[str, int]:
        checked = self.checked
        return {
            "inputs": len(self.sources) + len(self.unreadable),
            "checked": len(checked),
            "valid": sum(1 for check in checked if check.valid),
            "invalid": sum(1 for check in checked if not check.valid),
            "warnings": sum(len(check.warnings) for check in checked),
            "findings": sum(
                1 for check in checked for w in check.warnings if w.severity
            ),
            "failingFindings": len(self.failing_findings),
            "skipped": len(self.skipped),
            "unreadable": len(self.unreadable),
        }

    def as_dict(self) -> dict[str, Any]:
        """A stable JSON document for ``--format json`` and the REST API."""
        return {
            "results": [check.as_dict() for check in self.checked],
            "skipped": [skip.as_dict() for skip in self.skipped],
            "unreadable": [entry.as_dict() for entry in self.unreadable],
            "summary": self.summary(),
            "exitCode": self.exit_code,
        }


def check_objects(
    objects: Sequence[LoadedObject],
    *,
    source: str,
    validator: Validator = validate,
    now: datetime | None = None,
) -> SourceCheck:
    """Check every webhook configuration among ``objects`` loaded from ``source``.

    With ``now`` (certificate expiry needs a clock), valid objects are also
    run through the offline risk checks, reported as warnings.
    """
    multi_document = len({loaded.document for loaded in objects}) > 1
    checked: list[ObjectCheck] = []
    skipped: list[SkippedObject] = []
    for loaded in objects:
        obj = loaded.obj
        position = Position(
            source, loaded.document, loaded.item, loaded.line, multi_document
        )
        api_version, kind, name = _identity(obj)
        if not is_webhook_configuration(obj):
            skipped.append(
                SkippedObject(position, api_version, kind, name, _skip_reason(obj))
            )
            continue
        converted, changes = v1beta1.convert_to_v1(obj)
        errors = validator(converted)
        checked.append(
            ObjectCheck(
                position,
                api_version,
                kind,
                name,
                tuple(errors),
                _warnings_for(obj, changes)
                + (_risk_warnings(converted, now) if now and not errors else ()),
            )
        )
    return SourceCheck(source, tuple(checked), tuple(skipped))


def _warnings_for(
    original: dict[str, Any], changes: list[v1beta1.DefaultChange]
) -> tuple[CheckWarning, ...]:
    warnings: list[CheckWarning] = []
    if v1beta1.is_v1beta1_webhook_configuration(original):
        warnings.append(
            CheckWarning(
                V1BETA1_REMOVED,
                "apiVersion",
                "admissionregistration.k8s.io/v1beta1 was removed in Kubernetes "
                "1.22; checked as v1 with the v1beta1 defaults written out",
            )
        )
    warnings.extend(
        CheckWarning(V1BETA1_DEFAULT, change.field, change.message)
        for change in changes
    )
    return tuple(warnings)


def _risk_warnings(obj: dict[str, Any], now: datetime) -> tuple[CheckWarning, ...]:
    return tuple(
        CheckWarning(
            finding.check_id,
            finding.field,
            f"{finding.message} Fix: {finding.fix}",
            finding.severity,
        )
        for finding in risk.check_configuration(obj, now=now)
    )


def _identity(obj: dict[str, Any]) -> tuple[str, str, str]:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return (
        _text(obj.get("apiVersion")),
        _text(obj.get("kind")),
        _text(name),
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _skip_reason(obj: dict[str, Any]) -> str:
    if obj.get("kind") in KINDS:
        return (
            f'apiVersion "{_text(obj.get("apiVersion"))}" is not '
            "admissionregistration.k8s.io/v1 or v1beta1"
        )
    return "not a webhook configuration"
