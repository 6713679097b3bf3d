"""Risk checks for admission webhook configurations (GitHub issue 9).

Pure functions over plain dicts: ``check_configuration`` works offline on a
manifest (CI), ``check_cluster`` adds what synced cluster state tells,
``check_fleet`` compares clusters. ``CHECKS`` lists every check id.
"""

from webhooks_ui.domain.risk.cluster import check_cluster
from webhooks_ui.domain.risk.configuration import check_configuration
from webhooks_ui.domain.risk.fleet import check_fleet
from webhooks_ui.domain.risk.model import (
    APISERVER_REQUEST_TIMEOUT_SECONDS,
    CRITICAL,
    INFO,
    SEVERITIES,
    WARNING,
    CriticalRequest,
    Finding,
    RiskSettings,
    ServiceState,
    severity_at_least,
)
from webhooks_ui.domain.risk.registry import CHECKS, CheckInfo, check_info

__all__ = [
    "APISERVER_REQUEST_TIMEOUT_SECONDS",
    "CHECKS",
    "CRITICAL",
    "INFO",
    "SEVERITIES",
    "WARNING",
    "CheckInfo",
    "CriticalRequest",
    "Finding",
    "RiskSettings",
    "ServiceState",
    "check_cluster",
    "check_configuration",
    "check_fleet",
    "check_info",
    "severity_at_least",
]
