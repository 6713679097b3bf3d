"""The check registry and severity helpers."""

import re

import pytest

from webhooks_ui.domain.risk import (
    CHECKS,
    SEVERITIES,
    check_info,
    registry,
    severity_at_least,
)

ISSUE_IDS = {
    "fail-closed-system-namespaces",
    "service-no-ready-endpoints",
    "service-missing",
    "intercepts-own-pods",
    "ca-bundle-expired",
    "ca-bundle-expiring",
    "ca-bundle-invalid",
    "ca-bundle-missing",
    "ca-bundle-name-mismatch",
    "timeout-budget",
    "long-timeout",
    "side-effects-unsafe",
    "reinvocation-broad",
    "broad-interception",
    "connect-exec-fail-closed",
    "object-selector-bypass",
    "url-private-address",
    "review-versions-without-v1",
    "cross-cluster-risky-drift",
}


def test_registry_holds_every_id_of_the_issue():
    assert set(CHECKS) >= ISSUE_IDS


@pytest.mark.parametrize("check_id", sorted(CHECKS))
def test_entries_are_complete(check_id):
    info = check_info(check_id)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", info.check_id)
    assert info.default_severity in SEVERITIES
    assert info.scope in (registry.CONFIGURATION, registry.CLUSTER, registry.FLEET)
    assert info.title and info.description


def test_unknown_id():
    with pytest.raises(KeyError):
        check_info("no-such-check")


def test_severity_at_least():
    assert severity_at_least("critical", "warning")
    assert severity_at_least("warning", "warning")
    assert not severity_at_least("info", "warning")
