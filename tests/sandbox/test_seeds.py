"""The built-in seed sets: valid, realistic, and deliberately different per cluster."""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

import pytest
from cryptography import x509

from webhooks_ui.domain.validation import validate
from webhooks_ui.sandbox.seed_loader import (
    builtin_seed_names,
    expand_ca_placeholder,
    load_seed_dir,
    resolve_seed,
)
from webhooks_ui.sandbox.server import SandboxServer

from .factories import ADMISSION, MWC, VWC
from .raw_http import call

CLUSTERS = ("dev", "staging", "prod")


def _configurations(sb: SandboxServer) -> list[dict[str, Any]]:
    return sb.store.list(ADMISSION, VWC) + sb.store.list(ADMISSION, MWC)


def _by_name(configurations: list[dict[str, Any]]) -> dict[tuple[str, str], dict]:
    return {(c["kind"], c["metadata"]["name"]): c for c in configurations}


def _not_after(ca_bundle: str) -> dt.datetime:
    pem = base64.b64decode(ca_bundle)
    return x509.load_pem_x509_certificate(pem).not_valid_after_utc


@pytest.fixture(scope="module")
def seeded() -> dict[str, list[dict[str, Any]]]:
    configurations = {}
    for cluster in CLUSTERS:
        with SandboxServer(name=cluster, seed_dir=resolve_seed(cluster)) as sb:
            configurations[cluster] = _configurations(sb)
    return configurations


def test_three_builtin_sets() -> None:
    assert builtin_seed_names() == ["dev", "prod", "staging"]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_seed_objects_are_valid_and_sized(cluster: str) -> None:
    objects = load_seed_dir(resolve_seed(cluster))
    configurations = [o for o in objects if o["kind"] in (VWC, MWC)]
    assert 8 <= len(configurations) <= 20
    for obj in configurations:
        assert validate(obj) == [], obj["metadata"]["name"]
        assert 1 <= len(obj["webhooks"]) <= 4


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_seed_shapes(seeded: dict, cluster: str) -> None:
    hooks = [
        (c, h) for c in seeded[cluster] for h in c["webhooks"]
    ]  # every webhook with its configuration
    annotations = [c["metadata"].get("annotations", {}) for c in seeded[cluster]]
    assert any("cert-manager.io/inject-ca-from" in a for a in annotations)
    assert any("url" in h["clientConfig"] for _, h in hooks)
    assert any(h["failurePolicy"] == "Ignore" for _, h in hooks)
    assert any(h.get("matchConditions") for _, h in hooks)
    assert any(
        c["kind"] == MWC
        and h["reinvocationPolicy"] == "IfNeeded"
        and h["objectSelector"]
        and h.get("matchConditions")
        for c, h in hooks
    )
    catch_all = [
        h
        for _, h in hooks
        if h["rules"][0]["resources"] == ["*/*"]
        and h["rules"][0]["operations"] == ["*"]
        and h["namespaceSelector"] == {}
    ]
    assert catch_all, "a webhook on everything, kube-system included"
    excludes_system = [
        e
        for _, h in hooks
        for e in h["namespaceSelector"].get("matchExpressions", [])
        if e["operator"] == "NotIn" and "kube-system" in e["values"]
    ]
    assert excludes_system


# Seeds that trip the service-missing and ca-bundle-invalid risk checks.
DELIBERATELY_UNREADABLE_CA = {"backups.policy.example.io"}
DELIBERATELY_MISSING_SERVICE = {"quota.legacy.example.io"}


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_certificates_expired_and_expiring(seeded: dict, cluster: str) -> None:
    now = dt.datetime.now(dt.UTC)
    expiries = [
        _not_after(h["clientConfig"]["caBundle"])
        for c in seeded[cluster]
        for h in c["webhooks"]
        if "caBundle" in h["clientConfig"]
        and h["name"] not in DELIBERATELY_UNREADABLE_CA
    ]
    assert any(when < now for when in expiries) or cluster == "staging"
    assert any(now < when < now + dt.timedelta(days=30) for when in expiries)


def test_drift_between_clusters(seeded: dict) -> None:
    dev, staging, prod = (_by_name(seeded[c]) for c in CLUSTERS)
    guard = (VWC, "platform-guard")
    assert prod[guard]["webhooks"][0]["failurePolicy"] == "Fail"
    assert staging[guard]["webhooks"][0]["failurePolicy"] == "Ignore"
    debug = (MWC, "debug-sidecar-injector")
    assert debug in dev and debug not in staging and debug not in prod
    kyverno = (VWC, "kyverno-resource-validating-webhook-cfg")
    assert len(staging[kyverno]["webhooks"][0]["rules"]) == 3
    assert len(dev[kyverno]["webhooks"][0]["rules"]) == 2
    cert_manager = (VWC, "cert-manager-webhook")
    assert (
        staging[cert_manager]["webhooks"][0]["timeoutSeconds"]
        != prod[cert_manager]["webhooks"][0]["timeoutSeconds"]
    )


def test_services_endpoints_and_namespaces(dev_sandbox: SandboxServer) -> None:
    slices = call(dev_sandbox, "GET", "/apis/discovery.k8s.io/v1/endpointslices").body
    by_service = {
        s["metadata"]["labels"]["kubernetes.io/service-name"]: s
        for s in slices["items"]
    }
    not_ready = [
        name
        for name, s in by_service.items()
        if not any(e["conditions"]["ready"] for e in s["endpoints"])
    ]
    assert not_ready == ["webhook"]  # cosign-system/webhook: no ready endpoints
    services = call(dev_sandbox, "GET", "/api/v1/services").body["items"]
    for configuration in _configurations(dev_sandbox):
        for hook in configuration["webhooks"]:
            service = hook["clientConfig"].get("service")
            if service and hook["name"] not in DELIBERATELY_MISSING_SERVICE:
                assert any(
                    (s["metadata"]["namespace"], s["metadata"]["name"])
                    == (service["namespace"], service["name"])
                    for s in services
                ), hook["name"]
    namespaces = {
        n["metadata"]["name"]: n["metadata"]["labels"]
        for n in call(dev_sandbox, "GET", "/api/v1/namespaces").body["items"]
    }
    assert namespaces["payments"]["istio-injection"] == "enabled"
    assert namespaces["monitoring"]["policy.example.io/ignore"] == "true"
    assert namespaces["kube-system"] == {"kubernetes.io/metadata.name": "kube-system"}


def test_ca_placeholders_are_deterministic_per_day() -> None:
    today = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
    first = expand_ca_placeholder("sandbox-ca:cn=a-ca;not-after=+20d", today)
    again = expand_ca_placeholder("sandbox-ca:cn=a-ca;not-after=+20d", today)
    assert first == again
    assert _not_after(first) == today + dt.timedelta(days=20)
    fixed = expand_ca_placeholder(
        "sandbox-ca:cn=b-ca;not-before=2025-01-01;not-after=2035-01-01", today
    )
    assert _not_after(fixed).year == 2035
