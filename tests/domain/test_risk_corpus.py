"""Risk checks over every real manifest in the corpus: no crash, counts per check.

Run with ``pytest -s`` to see the table; it is also attached to the test
report as the ``risk_counts`` property. The expectations below pin the
false-positive review (see the docstrings of the risk modules).
"""

from collections import Counter
from datetime import UTC, datetime

import pytest

from webhooks_ui.domain.manifest import load_documents
from webhooks_ui.domain.risk import CHECKS, SEVERITIES, check_configuration

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def corpus_findings(corpus_dir):
    results = {}
    for path in sorted(corpus_dir.glob("*.yaml")):
        for obj in load_documents(path.read_text(), source=path.name):
            results.setdefault(path.name, []).extend(check_configuration(obj, now=NOW))
    assert results, "the corpus is empty"
    return results


def test_table_of_counts(corpus_findings, record_property):
    counts = Counter(
        (finding.check_id, finding.severity)
        for findings in corpus_findings.values()
        for finding in findings
    )
    lines = [f"{'check id':34} " + " ".join(f"{s:>8}" for s in SEVERITIES)]
    for check_id in CHECKS:
        row = [counts.get((check_id, severity), 0) for severity in SEVERITIES]
        if any(row):
            lines.append(f"{check_id:34} " + " ".join(f"{n:>8}" for n in row))
    table = "\n".join(lines)
    print(f"\nRisk findings over {len(corpus_findings)} corpus files\n{table}")
    record_property("risk_counts", table)
    assert all(check_id in CHECKS for check_id, _ in counts)


def _for(corpus_findings, prefix, check_id):
    return [
        finding
        for name, findings in corpus_findings.items()
        if name.startswith(prefix)
        for finding in findings
        if finding.check_id == check_id
    ]


def test_injected_ca_bundles_are_not_flagged(corpus_findings):
    # cert-manager, kserve, trust-manager: inject-ca-from annotations.
    for prefix in ("cert-manager--", "kserve--", "trust-manager--"):
        assert not _for(corpus_findings, prefix, "ca-bundle-missing")


def test_empty_ca_bundles_are_never_critical_offline(corpus_findings):
    for findings in corpus_findings.values():
        for finding in findings:
            if finding.check_id == "ca-bundle-missing":
                assert finding.severity == "info"


def test_istio_injector_is_narrowed_by_labels(corpus_findings):
    for check_id in ("fail-closed-system-namespaces", "intercepts-own-pods"):
        assert not _for(corpus_findings, "istio--", check_id)


def test_webhooks_excluding_their_namespaces_are_not_flagged(corpus_findings):
    # kyverno excludes kube-system and kyverno; volcano and linkerd likewise.
    for prefix in ("kyverno--", "volcano--", "linkerd--", "gatekeeper--"):
        assert not _for(corpus_findings, prefix, "fail-closed-system-namespaces")
        assert not _for(corpus_findings, prefix, "intercepts-own-pods")


def test_kubebuilder_pod_webhooks_without_selectors_are_flagged(corpus_findings):
    # A kustomize base as shipped: fail-closed on every pod, its own included.
    assert _for(corpus_findings, "kueue--", "fail-closed-system-namespaces")
    assert _for(corpus_findings, "kueue--", "intercepts-own-pods")
