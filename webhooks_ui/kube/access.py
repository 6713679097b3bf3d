"""How to reach one cluster: server, trust and credentials, as plain data."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

IN_CLUSTER_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


class AccessError(ValueError):
    """Registration input that cannot give a usable, safe way to reach a cluster."""


@dataclass(frozen=True)
class ClusterAccess:
    """Everything a client needs. Secret fields are kept out of ``repr``."""

    server: str
    ca_pem: str | None = None
    token: str | None = field(default=None, repr=False)
    client_cert_pem: str | None = field(default=None, repr=False)
    client_key_pem: str | None = field(default=None, repr=False)
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None

    def __post_init__(self) -> None:
        if not self.server.startswith(("https://", "http://")):
            raise AccessError(
                "The API server URL must start with https:// (got a value "
                "without a scheme)."
            )
        if bool(self.client_cert_pem) != bool(self.client_key_pem):
            raise AccessError("A client certificate needs its key, and the reverse.")


def in_cluster_server() -> str:
    """The API server URL a pod reaches through the kubernetes Service."""
    host = os.environ.get("KUBERNETES_SERVICE_HOST")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    if not host:
        raise AccessError(
            "Not running in a pod: KUBERNETES_SERVICE_HOST is not set, so "
            "--in-cluster cannot be used."
        )
    if ":" in host:  # IPv6
        host = f"[{host}]"
    return f"https://{host}:{port}"


def in_cluster_access(server: str, directory: Path = IN_CLUSTER_DIR) -> ClusterAccess:
    """Read the mounted service-account token and CA (re-read: they rotate)."""
    try:
        token = (directory / "token").read_text().strip()
        ca_pem = (directory / "ca.crt").read_text()
    except OSError as exc:
        raise AccessError(
            f"Cannot read the service-account token or CA in {directory} "
            f"({exc.strerror})."
        ) from None
    return ClusterAccess(server=server, ca_pem=ca_pem, token=token)
