"""The configuration page: metadata, owners and each webhook explained."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webhooks_ui.domain.certificates import CaBundleInfo, decode_ca_bundle
from webhooks_ui.domain.explain import FieldExplanation, explain_webhook
from webhooks_ui.domain.ownership import Owner, detect_owners
from webhooks_ui.models import RiskFinding, Service, WebhookConfiguration
from webhooks_ui.review.findings import findings_by_webhook


@dataclass(frozen=True)
class Target:
    """Where the apiserver sends the review: a service (with its state) or a URL."""

    url: str = ""
    namespace: str = ""
    name: str = ""
    port: Any = None
    path: str = ""
    service: Service | None = None

    @property
    def is_service(self) -> bool:
        return not self.url

    @property
    def service_state(self) -> str:
        if self.url:
            return ""
        if self.service is None or not self.service.exists:
            return "missing"
        return "ready" if self.service.has_ready_endpoints else "no-endpoints"


@dataclass(frozen=True)
class WebhookCard:
    index: int
    name: str
    anchor: str
    fail_closed: bool
    explanations: list[FieldExplanation]
    target: Target
    ca_bundle: CaBundleInfo
    findings: list[RiskFinding] = field(default_factory=list)


@dataclass(frozen=True)
class ConfigurationPage:
    configuration: WebhookConfiguration
    metadata: dict[str, Any]
    owners: list[Owner]
    webhooks: list[WebhookCard] = field(default_factory=list)
    # Findings about the configuration as a whole (no single webhook).
    findings: list[RiskFinding] = field(default_factory=list)


def configuration_page_build(
    *, configuration: WebhookConfiguration, now: datetime
) -> ConfigurationPage:
    """Everything the page shows, from the stored object and the cluster's services."""
    raw = configuration.raw if isinstance(configuration.raw, dict) else {}
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    webhooks = [w for w in raw.get("webhooks") or [] if isinstance(w, dict)]
    services = _services(configuration, webhooks)
    findings = findings_by_webhook(configuration)
    cards = [
        _card(index, webhook, configuration.kind, services, now, findings)
        for index, webhook in enumerate(webhooks)
    ]
    return ConfigurationPage(
        configuration, metadata, detect_owners(raw), cards, findings.get("", [])
    )


def _services(
    configuration: WebhookConfiguration, webhooks: list[dict[str, Any]]
) -> dict[tuple[str, str], Service]:
    wanted = {
        (str(svc.get("namespace", "")), str(svc.get("name", "")))
        for svc in (_service_ref(w) for w in webhooks)
        if svc
    }
    if not wanted:
        return {}
    rows = Service.objects.filter(
        cluster_id=configuration.cluster_id,
        namespace__in={ns for ns, _ in wanted},
        name__in={name for _, name in wanted},
    )
    return {(row.namespace, row.name): row for row in rows}


def _service_ref(webhook: dict[str, Any]) -> dict[str, Any] | None:
    client_config = webhook.get("clientConfig")
    if not isinstance(client_config, dict):
        return None
    service = client_config.get("service")
    return service if isinstance(service, dict) else None


def _card(
    index: int,
    webhook: dict[str, Any],
    kind: str,
    services: dict[tuple[str, str], Service],
    now: datetime,
    findings: dict[str, list[RiskFinding]],
) -> WebhookCard:
    client_config = webhook.get("clientConfig")
    client_config = client_config if isinstance(client_config, dict) else {}
    service = _service_ref(webhook)
    if service is not None:
        key = (str(service.get("namespace", "")), str(service.get("name", "")))
        target = Target(
            namespace=key[0],
            name=key[1],
            port=service.get("port", 443),
            path=str(service.get("path") or ""),
            service=services.get(key),
        )
    else:
        target = Target(url=str(client_config.get("url") or ""))
    ca_value = client_config.get("caBundle")
    return WebhookCard(
        index=index,
        name=str(webhook.get("name", "")),
        anchor=f"webhook-{index}",
        fail_closed=webhook.get("failurePolicy", "Fail") == "Fail",
        explanations=explain_webhook(webhook, kind=kind),
        target=target,
        findings=findings.get(str(webhook.get("name", "")), []),
        ca_bundle=decode_ca_bundle(
            ca_value if isinstance(ca_value, str) else None, now=now
        ),
    )
