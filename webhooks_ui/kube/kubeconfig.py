"""Parsing a kubeconfig into one resolved, self-contained context.

At registration we pick the context (``--context`` or current-context), read
every file it references (CA, client certificate and key, token file) and embed
them, so the stored kubeconfig needs nothing from the registering machine.
Plugins (exec, auth-provider) run arbitrary commands and are refused.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from webhooks_ui.kube.access import AccessError, ClusterAccess


class KubeconfigError(AccessError):
    """The kubeconfig cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class ResolvedKubeconfig:
    """One context with every reference embedded."""

    context: str
    document: dict[str, Any]
    access: ClusterAccess

    def __repr__(self) -> str:
        return f"<ResolvedKubeconfig context={self.context!r} {self.access.server}>"

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.document, sort_keys=False)


def resolve_kubeconfig(
    text: str,
    *,
    context: str | None = None,
    base_dir: Path | None = None,
    allow_insecure: bool = False,
) -> ResolvedKubeconfig:
    """Resolve ``context`` (or current-context) of a kubeconfig given as text.

    Relative file references are resolved against ``base_dir`` (the kubeconfig's
    directory), as kubectl does.
    """
    config = _load(text)
    contexts = _named(config, "contexts", "context")
    name = context or config.get("current-context") or ""
    if not name:
        raise KubeconfigError(
            "The kubeconfig has no current-context; choose one with --context "
            f"({_choices(contexts)})."
        )
    if name not in contexts:
        raise KubeconfigError(
            f"Context {name!r} is not in the kubeconfig ({_choices(contexts)})."
        )
    ctx = contexts[name]
    clusters = _named(config, "clusters", "cluster")
    users = _named(config, "users", "user")
    cluster_name, user_name = ctx.get("cluster"), ctx.get("user")
    if cluster_name not in clusters:
        raise KubeconfigError(
            f"Context {name!r} refers to cluster {cluster_name!r}, which is not "
            "in the kubeconfig."
        )
    if user_name and user_name not in users:
        raise KubeconfigError(
            f"Context {name!r} refers to user {user_name!r}, which is not in the "
            "kubeconfig."
        )
    cluster = clusters[cluster_name]
    user = users.get(user_name, {}) if user_name else {}
    base = base_dir or Path.cwd()

    server = str(cluster.get("server") or "")
    if not server:
        raise KubeconfigError(f"Cluster {cluster_name!r} has no server URL.")
    insecure = bool(cluster.get("insecure-skip-tls-verify"))
    if insecure and not allow_insecure:
        raise KubeconfigError(
            f"Cluster {cluster_name!r} sets insecure-skip-tls-verify: true. TLS "
            "verification protects the credentials; pass --allow-insecure only "
            "if you accept that risk."
        )
    ca_pem = _data_or_file(
        cluster, "certificate-authority-data", "certificate-authority", base, "CA"
    )
    creds = _user_credentials(user, user_name or "", base)
    access = ClusterAccess(
        server=server,
        ca_pem=ca_pem,
        token=creds["token"],
        client_cert_pem=creds["cert"],
        client_key_pem=creds["key"],
        insecure_skip_tls_verify=insecure,
        tls_server_name=cluster.get("tls-server-name") or None,
    )
    return ResolvedKubeconfig(
        context=name, document=_document(name, ctx, access), access=access
    )


def access_from_resolved(text: str) -> ClusterAccess:
    """Rebuild access from a kubeconfig stored by ``resolve_kubeconfig``."""
    return resolve_kubeconfig(text, allow_insecure=True).access


def _load(text: str) -> dict[str, Any]:
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise KubeconfigError(f"The kubeconfig is not valid YAML{where}.") from None
    if not isinstance(config, dict):
        raise KubeconfigError("The kubeconfig is not a YAML mapping.")
    return config


def _named(config: dict[str, Any], key: str, inner: str) -> dict[str, dict]:
    entries = config.get(key) or []
    if not isinstance(entries, list):
        raise KubeconfigError(f"The kubeconfig's {key!r} is not a list.")
    result: dict[str, dict] = {}
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name"):
            result[str(entry["name"])] = entry.get(inner) or {}
    return result


def _choices(contexts: dict[str, dict]) -> str:
    if not contexts:
        return "it defines no contexts"
    return "available: " + ", ".join(sorted(contexts))


def _data_or_file(
    section: dict[str, Any], data_key: str, file_key: str, base: Path, what: str
) -> str | None:
    if section.get(data_key):
        try:
            return base64.b64decode(section[data_key], validate=True).decode()
        except (binascii.Error, ValueError, UnicodeDecodeError):
            raise KubeconfigError(f"{data_key} is not valid base64 PEM.") from None
    if section.get(file_key):
        path = Path(str(section[file_key])).expanduser()
        if not path.is_absolute():
            path = base / path
        try:
            return path.read_text()
        except OSError as exc:
            raise KubeconfigError(
                f"Cannot read the {what} file {path} ({exc.strerror})."
            ) from None
    return None


def _user_credentials(
    user: dict[str, Any], user_name: str, base: Path
) -> dict[str, str | None]:
    if user.get("exec"):
        command = (user["exec"] or {}).get("command", "?")
        raise KubeconfigError(
            f"User {user_name!r} authenticates through an exec plugin ({command}). "
            "The dashboard does not run plugins; create a service-account token "
            "(see deploy/README.md) and register with --token-file."
        )
    if user.get("auth-provider"):
        raise KubeconfigError(
            f"User {user_name!r} uses an auth-provider plugin, which is not "
            "supported; register with a service-account token instead."
        )
    if user.get("username") or user.get("password"):
        raise KubeconfigError(
            f"User {user_name!r} uses basic authentication, which Kubernetes "
            "removed; use a token or a client certificate."
        )
    token = user.get("token") or None
    if not token and user.get("tokenFile"):
        path = Path(str(user["tokenFile"])).expanduser()
        path = path if path.is_absolute() else base / path
        try:
            token = path.read_text().strip()
        except OSError as exc:
            raise KubeconfigError(
                f"Cannot read the token file {path} ({exc.strerror})."
            ) from None
    cert = _data_or_file(
        user, "client-certificate-data", "client-certificate", base, "certificate"
    )
    key = _data_or_file(user, "client-key-data", "client-key", base, "key")
    if bool(cert) != bool(key):
        raise KubeconfigError(
            f"User {user_name!r} has a client certificate without its key, or a "
            "key without its certificate."
        )
    if not token and not cert:
        raise KubeconfigError(
            f"User {user_name!r} has no token or client certificate to sign in with."
        )
    return {"token": token, "cert": cert, "key": key}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


def _document(name: str, ctx: dict[str, Any], access: ClusterAccess) -> dict[str, Any]:
    cluster: dict[str, Any] = {"server": access.server}
    if access.ca_pem:
        cluster["certificate-authority-data"] = _b64(access.ca_pem)
    if access.insecure_skip_tls_verify:
        cluster["insecure-skip-tls-verify"] = True
    if access.tls_server_name:
        cluster["tls-server-name"] = access.tls_server_name
    user: dict[str, Any] = {}
    if access.token:
        user["token"] = access.token
    if access.client_cert_pem and access.client_key_pem:
        user["client-certificate-data"] = _b64(access.client_cert_pem)
        user["client-key-data"] = _b64(access.client_key_pem)
    context: dict[str, Any] = {"cluster": name, "user": name}
    if ctx.get("namespace"):
        context["namespace"] = ctx["namespace"]
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": name,
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": context}],
    }
