"""certificates: decoding caBundle values, with test certificates made here."""

import base64
from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from webhooks_ui.domain.certificates import (
    DER_NOT_PEM,
    NO_PEM,
    NOT_BASE64,
    PRIVATE_KEY,
    CaBundleInfo,
    covers_dns_name,
    decode_ca_bundle,
    parse_pem_or_base64,
    service_server_name,
)

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
CA_KEY = ec.generate_private_key(ec.SECP256R1())
LEAF_KEY = ec.generate_private_key(ec.SECP256R1())


def _name(common_name):
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def make_cert(
    common_name="webhook-ca",
    *,
    not_before=datetime(2025, 1, 1, tzinfo=UTC),
    not_after=datetime(2026, 1, 1, tzinfo=UTC),
    is_ca=True,
    dns_names=(),
    issuer=None,
    serial=0x1A2B3C,
):
    """A certificate with fixed dates, self-signed unless an issuer is given."""
    key = CA_KEY if issuer is None else LEAF_KEY
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name) if issuer is None else issuer.subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if dns_names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(n) for n in dns_names]),
            critical=False,
        )
    return builder.sign(CA_KEY, hashes.SHA256())


def pem(*certs):
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs)


def b64(data):
    return base64.b64encode(data).decode("ascii")


def test_single_ca_certificate():
    cert = make_cert()
    info = decode_ca_bundle(b64(pem(cert)), now=NOW)
    assert isinstance(info, CaBundleInfo)
    assert info.status == "valid" and info.errors == ()
    (c,) = info.certificates
    assert c.subject == "CN=webhook-ca,O=Example"
    assert c.issuer == c.subject
    assert c.serial_number == "1A:2B:3C"
    assert c.not_before == datetime(2025, 1, 1, tzinfo=UTC)
    assert c.not_after == datetime(2026, 1, 1, tzinfo=UTC)
    assert c.days_left == 213  # 2025-06-01 12:00 to 2026-01-01 00:00, floored
    assert c.is_ca and c.self_signed
    assert c.dns_names == ()
    assert c.fingerprint_sha256 == ":".join(
        f"{b:02X}" for b in cert.fingerprint(hashes.SHA256())
    )
    assert c.status == "valid"
    assert info.earliest_expiry == c.not_after


def test_leaf_signed_by_ca_is_not_self_signed():
    ca = make_cert()
    leaf = make_cert(
        "svc.ns.svc", is_ca=False, dns_names=("svc.ns.svc",), issuer=ca, serial=7
    )
    info = decode_ca_bundle(b64(pem(ca, leaf)), now=NOW)
    assert [c.self_signed for c in info.certificates] == [True, False]
    assert info.certificates[1].issuer == "CN=webhook-ca,O=Example"
    assert not info.certificates[1].is_ca
    assert info.certificates[1].serial_number == "07"


@pytest.mark.parametrize(
    ("not_before", "not_after", "status", "days_left"),
    [
        (
            datetime(2024, 1, 1, tzinfo=UTC),
            datetime(2025, 5, 1, tzinfo=UTC),
            "expired",
            -32,
        ),
        (
            datetime(2025, 7, 1, tzinfo=UTC),
            datetime(2026, 7, 1, tzinfo=UTC),
            "not_yet_valid",
            394,
        ),
        (
            datetime(2025, 1, 1, tzinfo=UTC),
            datetime(2025, 6, 20, tzinfo=UTC),
            "expiring",
            18,
        ),
        (datetime(2025, 1, 1, tzinfo=UTC), NOW + timedelta(days=30), "expiring", 30),
        (
            datetime(2025, 1, 1, tzinfo=UTC),
            NOW + timedelta(days=30, seconds=1),
            "valid",
            30,
        ),
    ],
)
def test_status_relative_to_now(not_before, not_after, status, days_left):
    cert = make_cert(not_before=not_before, not_after=not_after)
    (c,) = decode_ca_bundle(b64(pem(cert)), now=NOW).certificates
    assert (c.status, c.days_left) == (status, days_left)


def test_warn_days_is_a_keyword():
    cert = make_cert(not_after=datetime(2025, 8, 1, tzinfo=UTC))
    assert decode_ca_bundle(b64(pem(cert)), now=NOW).status == "valid"
    assert decode_ca_bundle(b64(pem(cert)), now=NOW, warn_days=90).status == "expiring"


def test_overall_status_is_the_worst():
    fine = make_cert("fine")
    soon = make_cert("soon", not_after=datetime(2025, 6, 10, tzinfo=UTC))
    gone = make_cert("gone", not_after=datetime(2025, 1, 2, tzinfo=UTC))
    assert decode_ca_bundle(b64(pem(fine, soon)), now=NOW).status == "expiring"
    info = decode_ca_bundle(b64(pem(soon, gone, fine)), now=NOW)
    assert info.status == "expired"
    assert [c.subject for c in info.certificates] == [
        "CN=soon,O=Example",
        "CN=gone,O=Example",
        "CN=fine,O=Example",
    ]


def test_naive_now_is_treated_as_utc():
    cert = make_cert()
    naive = decode_ca_bundle(b64(pem(cert)), now=NOW.replace(tzinfo=None))
    assert naive == decode_ca_bundle(b64(pem(cert)), now=NOW)


@pytest.mark.parametrize("value", [None, "", "  \n"])
def test_absent_bundle(value):
    assert decode_ca_bundle(value, now=NOW) == CaBundleInfo((), "absent")


def test_errors_are_returned_not_raised():
    info = decode_ca_bundle("this is *not* base64!", now=NOW)
    assert (info.status, info.errors, info.certificates) == (
        "invalid",
        (NOT_BASE64,),
        (),
    )
    info = decode_ca_bundle(b64(b"proxy injector CA bundle"), now=NOW)
    assert (info.status, info.errors) == ("invalid", (NO_PEM,))
    der = make_cert().public_bytes(serialization.Encoding.DER)
    assert decode_ca_bundle(b64(der), now=NOW).errors == (DER_NOT_PEM,)
    broken = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    info = decode_ca_bundle(b64(broken), now=NOW)
    assert info.status == "invalid"
    assert info.errors[0].startswith("certificate 1 in caBundle could not be parsed")
    assert info.errors[-1] == NO_PEM


def test_private_key_in_bundle_is_flagged_but_certs_still_read():
    key_pem = CA_KEY.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    info = decode_ca_bundle(b64(pem(make_cert()) + key_pem), now=NOW)
    assert info.status == "valid"
    assert len(info.certificates) == 1
    assert info.errors == (PRIVATE_KEY,)


def test_base64_with_line_breaks_and_bytes_input():
    data = pem(make_cert())
    wrapped = "\n".join(b64(data)[i : i + 76] for i in range(0, len(b64(data)), 76))
    assert decode_ca_bundle(wrapped, now=NOW).status == "valid"
    # bytes are the decoded field (Go's []byte): the PEM itself.
    assert decode_ca_bundle(data, now=NOW).status == "valid"


def test_parse_pem_or_base64_accepts_both():
    data = pem(make_cert())
    from_pem = parse_pem_or_base64(data.decode("ascii"), now=NOW)
    from_base64 = parse_pem_or_base64(b64(data), now=NOW)
    assert from_pem == from_base64
    assert from_pem.status == "valid"
    assert parse_pem_or_base64("garbage", now=NOW).errors == (NOT_BASE64,)


def test_covers_dns_name():
    cert = make_cert(
        is_ca=False, dns_names=("svc.ns.svc", "*.other.svc", "Mixed.Example.COM")
    )
    (c,) = decode_ca_bundle(pem(cert), now=NOW).certificates
    assert covers_dns_name(c, service_server_name("ns", "svc")) is True
    assert covers_dns_name(c, "svc.ns.svc.") is True
    assert covers_dns_name(c, "x.other.svc") is True
    assert covers_dns_name(c, "a.b.other.svc") is False  # one label only
    assert covers_dns_name(c, "other.svc") is False
    assert covers_dns_name(c, "mixed.example.com") is True
    assert covers_dns_name(c, "svc.elsewhere.svc") is False
    (ca,) = decode_ca_bundle(pem(make_cert()), now=NOW).certificates
    assert covers_dns_name(ca, "svc.ns.svc") is None


def test_service_server_name():
    assert service_server_name("cert-manager", "cert-manager-webhook") == (
        "cert-manager-webhook.cert-manager.svc"
    )
