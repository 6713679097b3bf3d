"""The cluster page: its configurations summarised, namespaces, sync history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webhooks_ui import selectors
from webhooks_ui.models import Cluster, Namespace, SyncRun, WebhookConfiguration

SYNC_HISTORY_LENGTH = 20


@dataclass(frozen=True)
class ConfigurationSummary:
    configuration: WebhookConfiguration
    failure_policies: list[str]
    targets: list[str]


@dataclass(frozen=True)
class ClusterPage:
    cluster: Cluster
    configurations: list[ConfigurationSummary]
    namespaces: list[Namespace]
    sync_runs: list[SyncRun]


def cluster_page_build(*, cluster: Cluster) -> ClusterPage:
    """Three queries whatever the cluster's size: configurations, namespaces, runs."""
    configurations = (
        selectors.configuration_list(cluster=cluster, include_deleted=True)
        .defer(None)
        .defer("cluster__credentials_encrypted")
    )
    summaries = [_summary(c) for c in configurations]
    namespaces = list(cluster.namespaces.order_by("name"))
    runs = list(selectors.sync_runs(cluster=cluster)[:SYNC_HISTORY_LENGTH])
    return ClusterPage(cluster, summaries, namespaces, runs)


def _summary(configuration: WebhookConfiguration) -> ConfigurationSummary:
    raw = configuration.raw if isinstance(configuration.raw, dict) else {}
    webhooks = [w for w in raw.get("webhooks") or [] if isinstance(w, dict)]
    policies = sorted({str(w.get("failurePolicy", "Fail")) for w in webhooks})
    targets = sorted({_target(w) for w in webhooks} - {""})
    return ConfigurationSummary(configuration, policies, targets)


def _target(webhook: dict[str, Any]) -> str:
    client_config = webhook.get("clientConfig")
    if not isinstance(client_config, dict):
        return ""
    service = client_config.get("service")
    if isinstance(service, dict):
        return f"{service.get('namespace', '')}/{service.get('name', '')}"
    return str(client_config.get("url") or "")
