"""Certificates: the sandbox's own CA and serving cert, and caBundles for seed data.

The serving chain is generated at start (or loaded from a state file) so clients
verify TLS exactly as against a real cluster, with the CA from the kubeconfig.
Seed caBundles use keys derived from their common name so that reloading a seed
gives the same key; only the validity window may depend on "now" (to keep an
"expired" and an "expires in 20 days" certificate true whenever seeds load).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_SERVER_NAMES = ("localhost",)
_SERVER_IPS = ("127.0.0.1", "::1")


@dataclass(frozen=True)
class ServingChain:
    """PEM strings of the CA and of the server certificate and key it signed."""

    ca_cert_pem: str
    ca_key_pem: str
    server_cert_pem: str
    server_key_pem: str


def _name(
    common_name: str, organization: str = "webhook-dashboard sandbox"
) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _key_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _cert_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _ca_certificate(
    key: ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey,
    subject: x509.Name,
    not_before: dt.datetime,
    not_after: dt.datetime,
    serial: int,
) -> x509.Certificate:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        )
        # Ed25519 takes no hash (and signs deterministically).
        .sign(
            key, None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256()
        )
    )


def generate_serving_chain(cluster_name: str) -> ServingChain:
    """A fresh CA (10 years) and a server certificate for loopback (1 year)."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _ca_certificate(
        ca_key,
        _name(f"sandbox-{cluster_name}-ca"),
        now - dt.timedelta(hours=1),
        now + dt.timedelta(days=3650),
        x509.random_serial_number(),
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    alt_names: list[x509.GeneralName] = [x509.DNSName(n) for n in _SERVER_NAMES]
    alt_names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in _SERVER_IPS]
    server_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("kube-apiserver"))
        .issuer_name(ca_cert.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    return ServingChain(
        ca_cert_pem=_cert_pem(ca_cert),
        ca_key_pem=_key_pem(ca_key),
        server_cert_pem=_cert_pem(server_cert),
        server_key_pem=_key_pem(server_key),
    )


def certificate_not_after(cert_pem: str) -> dt.datetime:
    return x509.load_pem_x509_certificate(cert_pem.encode()).not_valid_after_utc


def seed_ca_certificate(
    common_name: str, not_before: dt.datetime, not_after: dt.datetime
) -> str:
    """A self-signed CA certificate (PEM) for a seed webhook's caBundle.

    The key and serial are derived from the common name and Ed25519 signs
    deterministically, so the same name and dates always give the same PEM.
    """
    digest = hashlib.sha256(
        f"webhook-dashboard-sandbox/{common_name}".encode()
    ).digest()
    key = ed25519.Ed25519PrivateKey.from_private_bytes(digest)
    serial = int.from_bytes(digest[:16], "big") >> 1
    cert = _ca_certificate(key, _name(common_name), not_before, not_after, serial)
    return _cert_pem(cert)


def seed_serving_certificate(
    common_name: str,
    dns_names: list[str],
    not_before: dt.datetime,
    not_after: dt.datetime,
) -> str:
    """A self-signed serving (non-CA) certificate (PEM) for a seed caBundle.

    Some webhooks pin their serving certificate as the caBundle; seeds use this
    to show one whose names do not cover the service it is served from.
    Deterministic like ``seed_ca_certificate``.
    """
    digest = hashlib.sha256(
        f"webhook-dashboard-sandbox/serving/{common_name}".encode()
    ).digest()
    key = ed25519.Ed25519PrivateKey.from_private_bytes(digest)
    subject = _name(common_name)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(int.from_bytes(digest[:16], "big") >> 1)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName(name) for name in dns_names]),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(key, None)
    )
    return _cert_pem(cert)
