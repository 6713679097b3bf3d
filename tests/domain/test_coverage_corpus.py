"""Coverage of every corpus webhook against the Kubernetes v1.33 discovery snapshot.

Besides "no crash" and a few known facts about real webhooks, coverage is
cross-checked against ``matching``: every (resource, operation) of the
snapshot is covered exactly when ``evaluate`` says a request on it matches
(selectors aside), so the two can never disagree.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from webhooks_ui.domain.coverage import (
    cluster_coverage,
    prepare_configurations,
    webhook_coverage,
    who_intercepts,
)
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.discovery import (
    ApiResource,
    ResourceTable,
    equivalent_resources,
    parse_discovery,
)
from webhooks_ui.domain.kinds import API_VERSION_V1, KINDS
from webhooks_ui.domain.manifest import load_documents
from webhooks_ui.domain.matching import compile_webhook, evaluate_compiled, read_request

NAMESPACES = [
    {"name": "default", "labels": {"kubernetes.io/metadata.name": "default"}},
    {
        "name": "kube-system",
        "labels": {
            "kubernetes.io/metadata.name": "kube-system",
            "control-plane": "true",
        },
    },
    {
        "name": "apps",
        "labels": {"kubernetes.io/metadata.name": "apps", "istio-injection": "enabled"},
    },
]


@pytest.fixture(scope="module")
def table(discovery_snapshot: Path) -> ResourceTable:
    return ResourceTable.build(
        parse_discovery(json.loads(discovery_snapshot.read_text()))
    )


@pytest.fixture(scope="module")
def configurations(corpus_dir: Path) -> dict[str, dict[str, Any]]:
    """Defaulted v1 configurations keyed by file name (plus document index)."""
    result = {}
    for path in sorted(corpus_dir.glob("*.yaml")):
        for index, document in enumerate(load_documents(path.read_bytes())):
            if (
                document.get("kind") in KINDS
                and document.get("apiVersion") == API_VERSION_V1
            ):
                result[f"{path.stem}#{index}"] = apply_defaults(document)
    assert result
    return result


def _webhooks(configurations: dict[str, dict[str, Any]]):
    for key, configuration in configurations.items():
        for webhook in configuration.get("webhooks") or []:
            yield key, webhook


def test_snapshot_parses_completely(table):
    assert len(table.rows) == 138
    assert sum(1 for row in table.rows if row.subresource) == 50
    preferred = {(r.group, r.version) for r in table.rows if r.preferred}
    assert ("autoscaling", "v2") in preferred
    assert ("autoscaling", "v1") not in preferred
    assert ("resource.k8s.io", "v1beta2") in preferred


def test_every_corpus_webhook_has_a_coverage(configurations, table):
    count = 0
    for _key, webhook in _webhooks(configurations):
        coverage = webhook_coverage(webhook, resources=table, namespaces=NAMESPACES)
        count += 1
        for covered in coverage.resources:
            row = table.by_key[
                (covered.group, covered.version, covered.resource, covered.subresource)
            ]
            assert set(covered.operations) <= set(row.operations)
        assert len(coverage.selected_namespaces) + len(
            coverage.excluded_namespaces
        ) == len(NAMESPACES)
    assert count > 100


def _request_for(row: ApiResource, operation: str, table: ResourceTable) -> dict:
    kind_group, kind_version, kind = row.gvk
    return {
        "operation": operation,
        "group": row.group,
        "version": row.version,
        "resource": row.resource,
        "subresource": row.subresource,
        "kind": kind,
        "kind_group": kind_group,
        "kind_version": kind_version,
        "name": "x",
        "namespace": "default" if row.namespaced else "",
        "cluster_scoped": not row.namespaced,
        "namespace_labels": {},
        "object_labels": {},
        "old_object_labels": {},
        "equivalent_resources": equivalent_resources(
            table, row.group, row.version, row.resource, row.subresource
        ),
    }


def test_coverage_agrees_with_matching(configurations, table):
    requests = [
        (row, operation, read_request(_request_for(row, operation, table)))
        for row in table.rows
        for operation in row.operations
    ]
    for key, webhook in _webhooks(configurations):
        # Selectors judge objects, not resources: compare the rules alone.
        bare = copy.deepcopy(webhook)
        bare["namespaceSelector"] = {}
        bare["objectSelector"] = {}
        coverage = webhook_coverage(bare, resources=table, namespaces=[])
        covered = {
            (r.group, r.version, r.resource, r.subresource, op)
            for r in coverage.resources
            for op in r.operations
        }
        compiled = compile_webhook(bare)
        matched = {
            (*row.key, operation)
            for row, operation, attributes in requests
            if evaluate_compiled(compiled, attributes).matched
        }
        assert covered == matched, (key, webhook.get("name"))


def _find(configurations, file_prefix: str, webhook_name: str) -> dict:
    for key, webhook in _webhooks(configurations):
        if key.startswith(file_prefix) and webhook.get("name") == webhook_name:
            return webhook
    raise AssertionError(f"{webhook_name} not in {file_prefix}")


def test_cert_manager_covers_nothing_without_its_crds(configurations, table):
    webhook = _find(
        configurations,
        "cert-manager--validatingwebhookconfiguration",
        "webhook.cert-manager.io",
    )
    coverage = webhook_coverage(webhook, resources=table, namespaces=NAMESPACES)
    assert coverage.resources == ()


def test_star_star_covers_subresources(configurations, table):
    webhook = copy.deepcopy(
        _find(
            configurations,
            "cert-manager--validatingwebhookconfiguration",
            "webhook.cert-manager.io",
        )
    )
    webhook["rules"][0]["apiGroups"] = ["*"]
    coverage = webhook_coverage(webhook, resources=table, namespaces=NAMESPACES)
    names = {(r.group, r.name) for r in coverage.resources}
    assert ("", "pods/status") in names
    assert ("apps", "deployments/scale") in names
    assert ("", "pods/exec") not in names  # CREATE/UPDATE only, exec is CONNECT
    assert ("admissionregistration.k8s.io", "validatingwebhookconfigurations") not in (
        names
    )


def test_istio_sidecar_injector_covers_pod_create(configurations, table):
    webhook = _find(
        configurations,
        "istio--mutatingwebhookconfiguration--istio-sidecar-injector",
        "namespace.sidecar-injector.istio.io",
    )
    coverage = webhook_coverage(webhook, resources=table, namespaces=NAMESPACES)
    assert coverage.intercepted == (("", "v1", "pods", "", ("CREATE",)),)
    assert coverage.selected_namespaces == ("apps",)
    assert not coverage.covers_cluster_scoped


def test_who_intercepts_a_pod_create_across_the_corpus(configurations, table):
    prepared = prepare_configurations(configurations.values())
    request = {
        "operation": "CREATE",
        "group": "",
        "version": "v1",
        "resource": "pods",
        "subresource": "",
        "kind": "Pod",
        "name": "web-1",
        "namespace": "apps",
        "namespace_labels": NAMESPACES[2]["labels"],
        "object_labels": {"app": "web"},
        "old_object_labels": None,
    }
    result = who_intercepts(
        prepared,
        request,
        resources=table,
        sample_object={"metadata": {"name": "web-1", "labels": {"app": "web"}}},
        user={"username": "alice", "groups": ["system:authenticated"]},
    )
    names = [entry.webhook_name for entry in result.webhooks]
    assert "namespace.sidecar-injector.istio.io" in names
    kinds = [entry.configuration_kind for entry in result.webhooks]
    assert kinds == sorted(kinds)  # Mutating... sorts before Validating...
    assert len(result.webhooks) + len(result.not_matching) == len(prepared.webhooks)
    assert result.total_worst_case_seconds > 0


def test_cluster_coverage_of_the_whole_corpus(configurations, table):
    results = cluster_coverage(
        configurations.values(), resources=table, namespaces=NAMESPACES
    )
    assert len(results) == sum(1 for _ in _webhooks(configurations))
    assert any(coverage.covers_cluster_scoped for _hook, coverage in results)
