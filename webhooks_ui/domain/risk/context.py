"""One webhook of one configuration, defaulted, with what the checks ask of it.

Checks run on the defaulted object (spec section 4) because that is what the
apiserver stores and acts on: a manifest without failurePolicy fails closed.
They never raise on odd input; validation.py is where malformed fields are
reported, so a malformed field here simply does not produce a finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.kinds import KINDS, MUTATING, VALIDATING
from webhooks_ui.domain.risk.model import Finding


@dataclass(frozen=True)
class WebhookView:
    """A defaulted webhook with its position: ``path`` is ``webhooks[i]``."""

    configuration: str
    kind: str
    index: int
    name: str | None
    webhook: Mapping[str, Any]
    obj: Mapping[str, Any]

    @property
    def path(self) -> str:
        return f"webhooks[{self.index}]"

    def field(self, name: str) -> str:
        return f"{self.path}.{name}"

    @property
    def mutating(self) -> bool:
        return self.kind == MUTATING

    @property
    def validating(self) -> bool:
        return self.kind == VALIDATING

    @property
    def fails_closed(self) -> bool:
        return self.webhook.get("failurePolicy") == "Fail"

    @property
    def timeout(self) -> int:
        value = self.webhook.get("timeoutSeconds")
        return value if _is_int(value) else 10

    @property
    def client_config(self) -> Mapping[str, Any]:
        return _mapping(self.webhook.get("clientConfig"))

    @property
    def service(self) -> tuple[str, str] | None:
        """(namespace, name) of ``clientConfig.service`` when both are set."""
        service = self.client_config.get("service")
        if not isinstance(service, Mapping):
            return None
        namespace, name = service.get("namespace"), service.get("name")
        if isinstance(namespace, str) and namespace and isinstance(name, str) and name:
            return namespace, name
        return None

    @property
    def url(self) -> str | None:
        url = self.client_config.get("url")
        return url if isinstance(url, str) and url else None

    @property
    def rules(self) -> list[Mapping[str, Any]]:
        rules = self.webhook.get("rules")
        if not isinstance(rules, list):
            return []
        return [rule for rule in rules if isinstance(rule, Mapping)]

    @property
    def has_match_conditions(self) -> bool:
        conditions = self.webhook.get("matchConditions")
        return isinstance(conditions, list) and bool(conditions)

    def selector(self, name: str) -> Mapping[str, Any] | None:
        """A defaulted selector; None when it is not an object (matches nothing)."""
        value = self.webhook.get(name)
        return value if isinstance(value, Mapping) else None

    def finding(
        self,
        check_id: str,
        severity: str,
        field: str,
        message: str,
        fix: str,
        detail: tuple[str, ...] | list[str] = (),
    ) -> Finding:
        return Finding(
            check_id=check_id,
            severity=severity,
            configuration=self.configuration,
            webhook=self.name,
            field=field,
            message=message,
            fix=fix,
            detail=tuple(detail),
        )


def configuration_label(obj: Mapping[str, Any]) -> str:
    """``Kind/name`` of a configuration, tolerant of missing metadata."""
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "?"
    name = _mapping(obj.get("metadata")).get("name")
    return f"{kind}/{name if isinstance(name, str) and name else '?'}"


def webhook_views(obj: Mapping[str, Any]) -> Iterator[WebhookView]:
    """The webhooks of a v1 configuration, defaulted; nothing for other objects."""
    if not isinstance(obj, Mapping) or obj.get("kind") not in KINDS:
        return
    defaulted = apply_defaults(dict(obj))
    webhooks = defaulted.get("webhooks")
    if not isinstance(webhooks, list):
        return
    label = configuration_label(defaulted)
    for index, webhook in enumerate(webhooks):
        if not isinstance(webhook, Mapping):
            continue
        name = webhook.get("name")
        yield WebhookView(
            configuration=label,
            kind=str(defaulted["kind"]),
            index=index,
            name=name if isinstance(name, str) and name else None,
            webhook=webhook,
            obj=defaulted,
        )


def strings(value: Any) -> list[str]:
    """The string entries of a list field (anything else ignored)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def is_empty_selector(selector: Mapping[str, Any] | None) -> bool:
    """``{}`` or only empty parts: matches everything without looking."""
    if selector is None:
        return False
    return not selector.get("matchLabels") and not selector.get("matchExpressions")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
