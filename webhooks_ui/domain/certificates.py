"""What is inside a webhook's caBundle, and how long it stays valid.

``clientConfig.caBundle`` is a []byte field: in JSON and YAML it is the base64
of PEM text holding one or more certificates (the apiserver builds its trust
pool with Go's AppendCertsFromPEM, so DER or anything else is useless there).
Decoding never raises on user data: problems come back in ``errors``.
The clock is a parameter (``now``) so the result is deterministic.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtensionOID

VALID = "valid"
EXPIRING = "expiring"
EXPIRED = "expired"
NOT_YET_VALID = "not_yet_valid"
ABSENT = "absent"
INVALID = "invalid"

# Worst first: the bundle's overall status is its worst certificate's.
_SEVERITY = {EXPIRED: 0, NOT_YET_VALID: 1, EXPIRING: 2, VALID: 3}

NOT_BASE64 = "caBundle is not valid base64"
NO_PEM = "caBundle does not contain a PEM certificate"
DER_NOT_PEM = (
    "caBundle holds a DER (binary) certificate; the apiserver only reads PEM, "
    "so it trusts nothing from this bundle"
)
PRIVATE_KEY = "caBundle contains a private key; it must never be published here"

_PEM_BLOCK = re.compile(
    rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", flags=re.DOTALL
)
_WHITESPACE = re.compile(rb"\s+")


@dataclass(frozen=True)
class CertificateInfo:
    """One certificate of a bundle; times are timezone-aware UTC."""

    subject: str
    issuer: str
    serial_number: str
    not_before: datetime
    not_after: datetime
    days_left: int
    is_ca: bool
    dns_names: tuple[str, ...]
    ip_addresses: tuple[str, ...]
    self_signed: bool
    fingerprint_sha256: str
    status: str


@dataclass(frozen=True)
class CaBundleInfo:
    """A decoded bundle. ``status``: the worst certificate's status, or
    "absent" (nothing set) or "invalid" (set, but no certificate could be read).
    """

    certificates: tuple[CertificateInfo, ...]
    status: str
    errors: tuple[str, ...] = ()

    @property
    def earliest_expiry(self) -> datetime | None:
        """When the first certificate of the bundle expires."""
        return min((c.not_after for c in self.certificates), default=None)


def decode_ca_bundle(
    value: str | bytes | None, *, now: datetime, warn_days: int = 30
) -> CaBundleInfo:
    """Decode a caBundle as stored in the API.

    ``str``: the base64 text of the JSON/YAML field. ``bytes``: the field's
    value after base64 decoding (Go's []byte), i.e. the PEM bytes themselves.
    """
    if value is None:
        return CaBundleInfo((), ABSENT)
    if isinstance(value, bytes):
        return _parse_bundle(value, now=now, warn_days=warn_days)
    compact = _WHITESPACE.sub(b"", value.encode("utf-8", errors="replace"))
    if not compact:
        return CaBundleInfo((), ABSENT)
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return CaBundleInfo((), INVALID, (NOT_BASE64,))
    return _parse_bundle(data, now=now, warn_days=warn_days)


def parse_pem_or_base64(
    text: str | bytes, *, now: datetime, warn_days: int = 30
) -> CaBundleInfo:
    """Read what a user pasted: PEM text, or the base64 form of the field."""
    raw = text.encode("utf-8", errors="replace") if isinstance(text, str) else text
    if b"-----BEGIN" in raw:
        return _parse_bundle(raw, now=now, warn_days=warn_days)
    return decode_ca_bundle(
        raw.decode("ascii", errors="replace"), now=now, warn_days=warn_days
    )


def covers_dns_name(cert: CertificateInfo, name: str) -> bool | None:
    """Whether ``cert`` is valid for host ``name`` (Go's rules: SANs only, no CN).

    None when the certificate has no DNS names at all: typical for the CA
    certificate that sits in a caBundle, which says nothing about the serving
    certificate's names.
    """
    if not cert.dns_names:
        return None
    host = name.rstrip(".").lower()
    return any(_matches_dns(pattern, host) for pattern in cert.dns_names)


def service_server_name(namespace: str, name: str) -> str:
    """The host name the apiserver verifies for a service reference."""
    return f"{name}.{namespace}.svc"


def certificate_status(
    not_before: datetime, not_after: datetime, *, now: datetime, warn_days: int = 30
) -> str:
    """valid / expiring (within ``warn_days``) / expired / not_yet_valid."""
    now = _aware(now)
    if now < not_before:
        return NOT_YET_VALID
    if now > not_after:
        return EXPIRED
    if (not_after - now).total_seconds() <= warn_days * 86400:
        return EXPIRING
    return VALID


# --- parsing ----------------------------------------------------------------------


def _parse_bundle(data: bytes, *, now: datetime, warn_days: int) -> CaBundleInfo:
    if not data.strip():
        return CaBundleInfo((), ABSENT)
    certificates: list[CertificateInfo] = []
    errors: list[str] = []
    blocks = list(_PEM_BLOCK.finditer(data))
    for number, match in enumerate(blocks, start=1):
        label = match.group(1).decode("ascii", errors="replace")
        if label.endswith("PRIVATE KEY"):
            if PRIVATE_KEY not in errors:
                errors.append(PRIVATE_KEY)
            continue
        if label != "CERTIFICATE":
            errors.append(f"PEM block {number} is a {label}, not a CERTIFICATE")
            continue
        try:
            cert = x509.load_pem_x509_certificate(match.group(0))
        except ValueError as exc:
            errors.append(
                f"certificate {number} in caBundle could not be parsed: {exc}"
            )
            continue
        certificates.append(_describe(cert, now=now, warn_days=warn_days))
    if not blocks:
        errors.append(DER_NOT_PEM if _is_der_certificate(data) else NO_PEM)
    elif not certificates and not any(e == NO_PEM for e in errors):
        errors.append(NO_PEM)
    if not certificates:
        return CaBundleInfo((), INVALID, tuple(errors))
    worst = min((c.status for c in certificates), key=_SEVERITY.__getitem__)
    return CaBundleInfo(tuple(certificates), worst, tuple(errors))


def _describe(
    cert: x509.Certificate, *, now: datetime, warn_days: int
) -> CertificateInfo:
    now = _aware(now)
    not_before = cert.not_valid_before_utc
    not_after = cert.not_valid_after_utc
    dns_names: tuple[str, ...] = ()
    ip_addresses: tuple[str, ...] = ()
    try:
        san = cert.extensions.get_extension_for_oid(
            ExtensionOID.SUBJECT_ALTERNATIVE_NAME
        ).value
        dns_names = tuple(san.get_values_for_type(x509.DNSName))
        ip_addresses = tuple(str(ip) for ip in san.get_values_for_type(x509.IPAddress))
    except (x509.ExtensionNotFound, ValueError):
        pass
    is_ca = False
    with contextlib.suppress(x509.ExtensionNotFound, ValueError):
        constraints = cert.extensions.get_extension_for_oid(
            ExtensionOID.BASIC_CONSTRAINTS
        )
        is_ca = bool(constraints.value.ca)
    # days_left counts whole days and floors, so an expired cert gets -1 at once.
    days_left = int((not_after - now).total_seconds() // 86400)
    return CertificateInfo(
        subject=_rfc4514(cert, "subject"),
        issuer=_rfc4514(cert, "issuer"),
        serial_number=_serial(cert.serial_number),
        not_before=not_before,
        not_after=not_after,
        days_left=days_left,
        is_ca=is_ca,
        dns_names=dns_names,
        ip_addresses=ip_addresses,
        self_signed=_self_signed(cert),
        fingerprint_sha256=_hex(cert.fingerprint(hashes.SHA256())),
        status=certificate_status(not_before, not_after, now=now, warn_days=warn_days),
    )


def _rfc4514(cert: x509.Certificate, which: str) -> str:
    try:
        name = cert.subject if which == "subject" else cert.issuer
        return name.rfc4514_string()
    except ValueError:
        return "(unreadable name)"


def _self_signed(cert: x509.Certificate) -> bool:
    """Issuer equals subject and the signature verifies with its own key."""
    try:
        if cert.issuer != cert.subject:
            return False
        cert.verify_directly_issued_by(cert)
    except (ValueError, TypeError, InvalidSignature, UnsupportedAlgorithm):
        # Any failure means "not provably self-signed".
        return False
    return True


def _is_der_certificate(data: bytes) -> bool:
    try:
        x509.load_der_x509_certificate(data)
    except ValueError:
        return False
    return True


def _matches_dns(pattern: str, host: str) -> bool:
    pattern = pattern.rstrip(".").lower()
    if pattern.startswith("*."):
        # A wildcard covers exactly one left-most label (RFC 6125, as Go does).
        head, _, rest = host.partition(".")
        return bool(head) and rest == pattern[2:]
    return pattern == host


def _serial(number: int) -> str:
    """Colon-separated upper-case hex, as openssl and browsers show serials."""
    digits = f"{abs(number):X}"
    digits = digits.zfill(len(digits) + len(digits) % 2)
    sign = "-" if number < 0 else ""
    return sign + ":".join(digits[i : i + 2] for i in range(0, len(digits), 2))


def _hex(data: bytes) -> str:
    return ":".join(f"{byte:02X}" for byte in data)


def _aware(moment: datetime) -> datetime:
    """Treat a naive ``now`` as UTC rather than failing on the comparison."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
