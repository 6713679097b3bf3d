"""Where a webhook URL points, judged from its host alone (no DNS lookups).

The apiserver resolves a ``clientConfig.url`` host itself, from the control
plane's network and resolver, not the cluster's Service network or CoreDNS.
"""

from __future__ import annotations

import ipaddress

from webhooks_ui.domain.urls import GoURLError, go_url_parse

LOOPBACK = "loopback"
PRIVATE = "private"
LINK_LOCAL = "link-local"
IN_CLUSTER_NAME = "in-cluster-name"
LOCAL_NAME = "local-name"

_IN_CLUSTER_SUFFIXES = (".svc", ".svc.cluster.local", ".cluster.local")
_LOCAL_SUFFIXES = (".local", ".internal", ".localdomain", ".lan", ".home.arpa")


def url_host(url: str) -> str | None:
    """The lower-cased host of ``url`` without port or brackets (None: unparseable)."""
    try:
        parsed = go_url_parse(url)
    except GoURLError:
        return None
    host = parsed.host
    if host.startswith("["):
        end = host.find("]")
        host = host[1:end] if end > 0 else host[1:]
        host = host.split("%", 1)[0]  # an IPv6 zone
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".").lower() or None


def classify_host(host: str) -> str | None:
    """LOOPBACK, PRIVATE, LINK_LOCAL, IN_CLUSTER_NAME, LOCAL_NAME, or None (public)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        if address.is_loopback or address.is_unspecified:
            return LOOPBACK
        if address.is_link_local:
            return LINK_LOCAL
        # is_private also covers 100.64/10 shared space and unique-local IPv6.
        if address.is_private or address in ipaddress.ip_network("100.64.0.0/10"):
            return PRIVATE
        return None
    if host == "localhost" or host.endswith(".localhost"):
        return LOOPBACK
    if host.endswith(_IN_CLUSTER_SUFFIXES):
        return IN_CLUSTER_NAME
    if "." not in host or host.endswith(_LOCAL_SUFFIXES):
        return LOCAL_NAME
    return None


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
