"""risk caBundle checks, with certificates generated here (fixed dates)."""

import base64
from datetime import UTC, datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.domain.webhook_factory import config, rule, webhook
from webhooks_ui.domain.risk import RiskSettings, check_cluster, check_configuration

NOW = datetime(2026, 6, 1, tzinfo=UTC)
KEY = ec.generate_private_key(ec.SECP256R1())
CUSTOM = [rule(apiGroups=["example.com"], resources=["widgets"])]


def make_cert(
    *,
    not_before=datetime(2026, 1, 1, tzinfo=UTC),
    not_after=datetime(2027, 1, 1, tzinfo=UTC),
    is_ca=True,
    dns_names=(),
):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webhook-ca")])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(KEY.public_key())
        .serial_number(1)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if dns_names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(n) for n in dns_names]),
            critical=False,
        )
    return builder.sign(KEY, hashes.SHA256())


def bundle(*certs):
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs)
    return base64.b64encode(pem).decode("ascii")


def hook(ca_bundle=None, *, url=None, **overrides):
    client = {"url": url} if url else {"service": {"name": "svc", "namespace": "ns"}}
    if ca_bundle is not None:
        client["caBundle"] = ca_bundle
    return webhook(clientConfig=client, rules=CUSTOM, **overrides)


def tls_findings(obj, **settings):
    return [
        f
        for f in check_configuration(obj, now=NOW, settings=RiskSettings(**settings))
        if f.check_id.startswith("ca-bundle")
    ]


def live_findings(obj):
    return [
        f
        for f in check_cluster([obj], services=None, namespaces=[("ns", {})], now=NOW)
        if f.check_id.startswith("ca-bundle")
    ]


def test_valid_bundle_gives_nothing():
    assert tls_findings(config(hook(bundle(make_cert())))) == []


def test_expired_bundle_fail_closed_is_critical():
    old = make_cert(not_after=datetime(2026, 5, 1, tzinfo=UTC))
    [finding] = tls_findings(config(hook(bundle(old))))
    assert finding.check_id == "ca-bundle-expired"
    assert finding.severity == "critical"
    assert finding.field == "webhooks[0].clientConfig.caBundle"
    assert "2026-05-01" in finding.message


def test_expired_bundle_fail_open_is_a_warning():
    old = make_cert(not_after=datetime(2026, 5, 1, tzinfo=UTC))
    [finding] = tls_findings(config(hook(bundle(old), failurePolicy="Ignore")))
    assert (finding.check_id, finding.severity) == ("ca-bundle-expired", "warning")


def test_old_expired_ca_next_to_a_new_one_is_fine():
    old = make_cert(not_after=datetime(2026, 5, 1, tzinfo=UTC))
    assert tls_findings(config(hook(bundle(old, make_cert())))) == []


def test_expiring_within_30_days():
    soon = make_cert(not_after=datetime(2026, 6, 20, tzinfo=UTC))
    [finding] = tls_findings(config(hook(bundle(soon))))
    assert (finding.check_id, finding.severity) == ("ca-bundle-expiring", "warning")
    assert "in 19 days" in finding.message


def test_expiring_window_is_configurable():
    later = make_cert(not_after=datetime(2026, 7, 20, tzinfo=UTC))
    assert tls_findings(config(hook(bundle(later)))) == []
    [finding] = tls_findings(config(hook(bundle(later))), expiring_days=60)
    assert finding.check_id == "ca-bundle-expiring"


def test_not_yet_valid_bundle_is_invalid():
    future = make_cert(not_before=datetime(2026, 7, 1, tzinfo=UTC))
    [finding] = tls_findings(config(hook(bundle(future))))
    assert finding.check_id == "ca-bundle-invalid"
    assert "2026-07-01" in finding.message


def test_unreadable_bundle():
    garbage = base64.b64encode(b"proxy injector CA bundle").decode()
    [finding] = tls_findings(config(hook(garbage)))
    assert (finding.check_id, finding.severity) == ("ca-bundle-invalid", "critical")
    assert finding.detail  # the decoder's reason


def test_not_base64_bundle():
    [finding] = tls_findings(config(hook("not base64!!")))
    assert finding.check_id == "ca-bundle-invalid"


def test_serving_certificate_for_another_host():
    leaf = make_cert(is_ca=False, dns_names=("other.ns.svc",))
    [finding] = tls_findings(config(hook(bundle(leaf))))
    assert finding.check_id == "ca-bundle-name-mismatch"
    assert "svc.ns.svc" in finding.message and "other.ns.svc" in finding.message


def test_serving_certificate_for_the_service_host():
    leaf = make_cert(is_ca=False, dns_names=("svc.ns.svc", "svc.ns.svc.cluster.local"))
    assert tls_findings(config(hook(bundle(leaf)))) == []


def test_ca_certificate_names_say_nothing_about_the_serving_host():
    ca = make_cert(is_ca=True, dns_names=("unrelated.example.com",))
    assert tls_findings(config(hook(bundle(ca)))) == []


def test_name_mismatch_for_url_host():
    leaf = make_cert(is_ca=False, dns_names=("a.example.com",))
    obj = config(hook(bundle(leaf), url="https://b.example.com/v"))
    [finding] = tls_findings(obj)
    assert finding.check_id == "ca-bundle-name-mismatch"


# --- missing caBundle ------------------------------------------------------------


def test_missing_offline_without_injector_is_info():
    [finding] = tls_findings(config(hook()))
    assert (finding.check_id, finding.severity) == ("ca-bundle-missing", "info")


def test_missing_offline_with_injector_is_expected():
    obj = config(hook())
    obj["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "ns/cert"}
    assert tls_findings(obj) == []


def test_missing_for_public_url_uses_system_roots():
    assert tls_findings(config(hook(url="https://hooks.example.com/v"))) == []


def test_missing_for_private_url():
    [finding] = tls_findings(config(hook(url="https://10.1.2.3/v")))
    assert finding.check_id == "ca-bundle-missing"


def test_missing_on_a_live_cluster_is_critical_when_fail_closed():
    [finding] = live_findings(config(hook()))
    assert (finding.check_id, finding.severity) == ("ca-bundle-missing", "critical")


def test_missing_on_a_live_cluster_fail_open_is_a_warning():
    [finding] = live_findings(config(hook(failurePolicy="Ignore")))
    assert finding.severity == "warning"


def test_live_injected_configuration_gets_a_grace_period():
    obj = config(hook())
    obj["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "ns/cert"}
    obj["metadata"]["creationTimestamp"] = "2026-05-31T23:55:00Z"
    assert live_findings(obj) == []
    obj["metadata"]["creationTimestamp"] = "2026-05-31T12:00:00Z"
    [finding] = live_findings(obj)
    assert finding.check_id == "ca-bundle-missing"
    assert "cert-manager" in finding.message
