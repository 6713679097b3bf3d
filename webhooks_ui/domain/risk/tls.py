"""caBundle checks: missing, unreadable, expired, expiring, wrong host name.

The apiserver verifies the webhook's serving certificate against caBundle,
or against its own system roots when caBundle is empty. For a Service (and
for a URL at a private address) system roots never work, so an empty
caBundle means every call fails TLS verification.

Missing caBundle, decided:

* Offline (a manifest): when something is known to inject the CA
  (``ownership.detect_owners``: cert-manager annotations, istiod, OLM,
  knative.dev/pkg, ...), an empty caBundle is expected, so no finding. With
  no known injector it is an *info*: most manifests (kubebuilder bases, Helm
  output) get it filled at install time by something we cannot see.
* Live (stored on a cluster): injection is expected once the configuration
  is older than ``ca_injection_grace_seconds`` (10 minutes); after that an
  empty caBundle is critical for a fail-closed webhook, a warning otherwise.

When a bundle holds several certificates (a CA rotation), the best one
counts: the apiserver trusts any of them, so an old expired CA next to the
new one is harmless.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from webhooks_ui.domain.certificates import (
    ABSENT,
    EXPIRED,
    EXPIRING,
    INVALID,
    NOT_YET_VALID,
    VALID,
    CertificateInfo,
    covers_dns_name,
    decode_ca_bundle,
    service_server_name,
)
from webhooks_ui.domain.ownership import detect_owners
from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.addresses import classify_host, is_ip, url_host
from webhooks_ui.domain.risk.context import WebhookView
from webhooks_ui.domain.risk.model import (
    CRITICAL,
    INFO,
    WARNING,
    Finding,
    RiskSettings,
)
from webhooks_ui.domain.risk.samples import Environment


def ca_injectors(obj: Mapping[str, Any]) -> list[str]:
    """Names of whatever writes this configuration's caBundle."""
    return [
        owner.name or owner.kind for owner in detect_owners(obj) if owner.owns_ca_bundle
    ]


def check_ca_bundle(
    view: WebhookView,
    *,
    now: datetime,
    settings: RiskSettings,
    environment: Environment,
    injectors: list[str],
) -> list[Finding]:
    host, needs_bundle = _target(view)
    if host is None:
        return []
    field = view.field("clientConfig.caBundle")
    value = view.client_config.get("caBundle")
    info = decode_ca_bundle(
        value if isinstance(value, str | bytes) else None,
        now=now,
        warn_days=settings.expiring_days,
    )
    if info.status == ABSENT:
        if not needs_bundle:
            return []
        return _missing(view, host, field, now, settings, environment, injectors)
    by_policy = CRITICAL if view.fails_closed else WARNING
    if info.status == INVALID:
        return [
            view.finding(
                ids.CA_BUNDLE_INVALID,
                by_policy,
                field,
                "The apiserver cannot read a certificate from caBundle, so every "
                f"call to the webhook fails{_consequence(view)}.",
                "Set caBundle to the base64 of the PEM CA certificate that signed "
                "the webhook's serving certificate.",
                info.errors,
            )
        ]
    findings = _validity(view, info.certificates, field, by_policy, now)
    findings.extend(_host_name(view, info.certificates, host, field, by_policy))
    return findings


def _target(view: WebhookView) -> tuple[str | None, bool]:
    """(host the apiserver verifies, whether system roots cannot work for it)."""
    service = view.service
    if service is not None:
        return service_server_name(*service), True
    if view.url is None:
        return None, False
    host = url_host(view.url)
    if host is None:
        return None, False
    return host, classify_host(host) is not None


def _missing(
    view: WebhookView,
    host: str,
    field: str,
    now: datetime,
    settings: RiskSettings,
    environment: Environment,
    injectors: list[str],
) -> list[Finding]:
    consequence = (
        f"the apiserver checks {host}'s certificate against its system roots, "
        "which never signed it, so every call fails TLS verification"
        f"{_consequence(view)}"
    )
    by_policy = CRITICAL if view.fails_closed else WARNING
    if injectors:
        if not environment.live or _young(view.obj, now, settings):
            return []
        names = ", ".join(injectors)
        return [
            view.finding(
                ids.CA_BUNDLE_MISSING,
                by_policy,
                field,
                f"The CA injector ({names}) has not written caBundle, so "
                f"{consequence}.",
                f"Check that {names} is running and can update this configuration; "
                "its logs name the failure.",
                (f"injected by: {names}",),
            )
        ]
    if not environment.live:
        return [
            view.finding(
                ids.CA_BUNDLE_MISSING,
                INFO,
                field,
                f"caBundle is empty and nothing known injects it; unless your "
                f"install fills it, {consequence}.",
                "Set caBundle, or annotate the configuration for a CA injector "
                "(e.g. cert-manager.io/inject-ca-from: <namespace>/<certificate>).",
            )
        ]
    return [
        view.finding(
            ids.CA_BUNDLE_MISSING,
            by_policy,
            field,
            f"caBundle is empty, so {consequence}.",
            "Set caBundle to the base64 PEM of the CA that signed the webhook's "
            "serving certificate, or let a CA injector manage it.",
        )
    ]


def _validity(
    view: WebhookView,
    certificates: tuple[CertificateInfo, ...],
    field: str,
    by_policy: str,
    now: datetime,
) -> list[Finding]:
    usable = [c for c in certificates if c.status in (VALID, EXPIRING)]
    if not usable:
        latest = max(certificates, key=lambda c: c.not_after)
        if all(c.status == EXPIRED for c in certificates):
            return [
                view.finding(
                    ids.CA_BUNDLE_EXPIRED,
                    by_policy,
                    field,
                    f"Every certificate in caBundle has expired (the last on "
                    f"{_day(latest.not_after)}), so TLS verification of every call "
                    f"fails{_consequence(view)}.",
                    "Renew the CA and put the new certificate in caBundle (or fix "
                    "the CA injector that should have).",
                    _describe(certificates),
                )
            ]
        earliest = min(
            (c for c in certificates if c.status == NOT_YET_VALID),
            key=lambda c: c.not_before,
        )
        return [
            view.finding(
                ids.CA_BUNDLE_INVALID,
                by_policy,
                field,
                f"No certificate in caBundle is valid yet (the first from "
                f"{_day(earliest.not_before)}), so TLS verification of every call "
                f"fails{_consequence(view)}.",
                "Check the clock of whatever issued the CA, or put the current CA "
                "certificate in caBundle.",
                _describe(certificates),
            )
        ]
    best = max(usable, key=lambda c: c.not_after)
    if best.status != EXPIRING:
        return []
    days = max(int((best.not_after - _aware(now)).total_seconds() // 86400), 0)
    return [
        view.finding(
            ids.CA_BUNDLE_EXPIRING,
            WARNING,
            field,
            f"The CA in caBundle expires on {_day(best.not_after)} (in {days} "
            f"days); after that every call fails{_consequence(view)}.",
            "Rotate the CA now and add the new certificate to caBundle next to "
            "the old one until the webhook serves a certificate from the new CA.",
            _describe(certificates),
        )
    ]


def _host_name(
    view: WebhookView,
    certificates: tuple[CertificateInfo, ...],
    host: str,
    field: str,
    by_policy: str,
) -> list[Finding]:
    if is_ip(host):
        return []  # IP SANs are not compared here; Go would check them
    # A CA certificate's names say nothing about the serving certificate; a
    # non-CA certificate in caBundle is the serving certificate itself.
    leaves = [c for c in certificates if not c.is_ca and c.dns_names]
    if not leaves or any(covers_dns_name(c, host) for c in leaves):
        return []
    names = sorted({name for c in leaves for name in c.dns_names})
    return [
        view.finding(
            ids.CA_BUNDLE_NAME_MISMATCH,
            by_policy,
            field,
            f"The serving certificate in caBundle is not valid for {host} (it names "
            f"{', '.join(names)}), so TLS verification of every call "
            f"fails{_consequence(view)}.",
            f"Reissue the serving certificate with {host} as a DNS subject "
            "alternative name.",
            (f"apiserver connects to: {host}",),
        )
    ]


def _consequence(view: WebhookView) -> str:
    if view.fails_closed:
        return " and matching requests are rejected (failurePolicy: Fail)"
    return " and matching requests skip the webhook (failurePolicy: Ignore)"


def _young(obj: Mapping[str, Any], now: datetime, settings: RiskSettings) -> bool:
    """Created within the CA-injection grace period (unknown age counts as old)."""
    metadata = obj.get("metadata")
    created = None
    if isinstance(metadata, Mapping):
        created = metadata.get("creationTimestamp")
    if not isinstance(created, str):
        return False
    try:
        moment = _aware(datetime.fromisoformat(created.replace("Z", "+00:00")))
    except ValueError:
        return False
    age = (_aware(now) - moment).total_seconds()
    return 0 <= age < settings.ca_injection_grace_seconds


def _describe(certificates: tuple[CertificateInfo, ...]) -> tuple[str, ...]:
    return tuple(
        f"{c.subject}: valid {_day(c.not_before)} to {_day(c.not_after)} ({c.status})"
        for c in certificates
    )


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
