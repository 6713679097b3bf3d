"""Registering clusters and checking that the dashboard can reach them."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction

from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.kube import reader
from webhooks_ui.kube.access import (
    AccessError,
    ClusterAccess,
    in_cluster_access,
    in_cluster_server,
)
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.errors import Forbidden, KubeError
from webhooks_ui.kube.kubeconfig import access_from_resolved, resolve_kubeconfig
from webhooks_ui.models import Cluster
from webhooks_ui.services.credentials import cluster_credentials, credentials_encrypt

logger = logging.getLogger(__name__)


class ClusterRegistrationError(ValueError):
    """Registration input is incomplete, contradictory or unsafe."""


@dataclass
class ConnectionReport:
    """What a connection test found: reachability, version, list permissions."""

    ok: bool
    server_version: str = ""
    can_list: dict[str, bool] = field(default_factory=dict)
    error: str = ""

    def summary(self) -> str:
        if not self.ok:
            return self.error
        allowed = ", ".join(
            f"{kind}: {'yes' if value else 'NO'}"
            for kind, value in self.can_list.items()
        )
        return f"reachable, Kubernetes {self.server_version}; can list {allowed}"


def cluster_register(
    *,
    name: str,
    environment: str = "",
    kubeconfig_text: str | None = None,
    context: str | None = None,
    token: str | None = None,
    ca_pem: str | None = None,
    server: str | None = None,
    in_cluster: bool = False,
    allow_insecure: bool = False,
    display_name: str = "",
    is_sandbox: bool = False,
    kubeconfig_dir: Path | None = None,
    replace: bool = False,
) -> Cluster:
    """Register (or with ``replace``, re-register) a cluster with encrypted credentials.

    Exactly one method: a kubeconfig (one context resolved, files embedded), a
    server URL with token (and CA), or the pod's in-cluster service account.
    """
    try:
        validate_slug(name)
    except ValidationError:
        raise ClusterRegistrationError(
            f"Cluster name {name!r} must be a slug: letters, digits, - and _."
        ) from None
    if len(name) > 63:
        raise ClusterRegistrationError("Cluster name is longer than 63 characters.")
    methods = [kubeconfig_text is not None, token is not None, in_cluster]
    if sum(methods) != 1:
        raise ClusterRegistrationError(
            "Give exactly one of: a kubeconfig, a server with a token, or in-cluster."
        )
    try:
        method, access, document = _resolve(
            kubeconfig_text=kubeconfig_text,
            context=context,
            token=token,
            ca_pem=ca_pem,
            server=server,
            allow_insecure=allow_insecure,
            kubeconfig_dir=kubeconfig_dir,
        )
    except AccessError as exc:
        raise ClusterRegistrationError(str(exc)) from None
    values = {
        "environment": environment,
        "display_name": display_name,
        "api_server_url": access.server,
        "auth_method": method,
        "credentials_encrypted": credentials_encrypt(document=document),
        "insecure_skip_tls_verify": access.insecure_skip_tls_verify,
        "is_sandbox": is_sandbox,
    }
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().filter(name=name).first()
        if cluster is not None and not replace:
            raise ClusterRegistrationError(
                f"A cluster named {name!r} is already registered."
            )
        if cluster is None:
            cluster = Cluster.objects.create(name=name, **values)
            action = "registered"
        else:
            for key, value in values.items():
                setattr(cluster, key, value)
            cluster.save()
            action = "re-registered"
    # Issue 7 brings the audit model; until then the event goes to the log.
    logger.info(
        "Cluster %s %s (%s, %s)", name, action, method, access.server.split("?")[0]
    )
    return cluster


def _resolve(
    *,
    kubeconfig_text: str | None,
    context: str | None,
    token: str | None,
    ca_pem: str | None,
    server: str | None,
    allow_insecure: bool,
    kubeconfig_dir: Path | None,
) -> tuple[str, ClusterAccess, dict[str, str]]:
    if kubeconfig_text is not None:
        resolved = resolve_kubeconfig(
            kubeconfig_text,
            context=context,
            base_dir=kubeconfig_dir,
            allow_insecure=allow_insecure,
        )
        if server and server != resolved.access.server:
            raise ClusterRegistrationError(
                "--server disagrees with the kubeconfig's server; omit it."
            )
        return (
            Cluster.AuthMethod.KUBECONFIG,
            resolved.access,
            {"kubeconfig": resolved.to_yaml()},
        )
    if token is not None:
        token = token.strip()
        if not server:
            raise ClusterRegistrationError("A token needs the API server URL.")
        if not token:
            raise ClusterRegistrationError("The token is empty.")
        if not ca_pem and not allow_insecure and server.startswith("https://"):
            # Without a CA we fall back to the system trust store, which is
            # right for managed clusters with publicly trusted certificates.
            logger.info("Cluster %s: no CA given, using the system trust store", server)
        insecure = bool(allow_insecure and not ca_pem)
        access = ClusterAccess(
            server=server,
            ca_pem=ca_pem or None,
            token=token,
            insecure_skip_tls_verify=insecure,
        )
        return (
            Cluster.AuthMethod.TOKEN,
            access,
            {"token": token, "ca_pem": ca_pem or ""},
        )
    host = server or in_cluster_server()
    return Cluster.AuthMethod.IN_CLUSTER, ClusterAccess(server=host), {}


def cluster_access(*, cluster: Cluster) -> ClusterAccess:
    """How to reach ``cluster`` now, from its decrypted credentials."""
    document = cluster_credentials(cluster=cluster)
    if cluster.auth_method == Cluster.AuthMethod.KUBECONFIG:
        return access_from_resolved(document["kubeconfig"])
    if cluster.auth_method == Cluster.AuthMethod.TOKEN:
        return ClusterAccess(
            server=cluster.api_server_url,
            ca_pem=document.get("ca_pem") or None,
            token=document["token"],
            insecure_skip_tls_verify=cluster.insecure_skip_tls_verify,
        )
    return in_cluster_access(cluster.api_server_url)


def cluster_client(*, cluster: Cluster, timeout: float | None = None) -> KubeClient:
    """A new client for ``cluster``; the caller closes it."""
    return KubeClient(
        cluster_access(cluster=cluster), name=cluster.name, timeout=timeout
    )


def cluster_test_connection(*, cluster: Cluster) -> ConnectionReport:
    """Reach the cluster, read its version and try to list both kinds (limit=1).

    Read-only: nothing is written, in the cluster or here.
    """
    try:
        with cluster_client(cluster=cluster) as client:
            version = reader.server_version(client)
            can_list = {}
            for kind in KINDS:
                try:
                    client.request(
                        "GET", reader.configurations_path(kind), query=[("limit", 1)]
                    )
                    can_list[kind] = True
                except Forbidden:
                    can_list[kind] = False
    except (KubeError, AccessError) as exc:
        return ConnectionReport(ok=False, error=str(exc))
    return ConnectionReport(
        ok=all(can_list.values()),
        server_version=version,
        can_list=can_list,
        error=""
        if all(can_list.values())
        else "The credentials cannot list every kind.",
    )
