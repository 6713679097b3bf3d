"""Benchmark: who-intercepts and full coverage on a cluster with 1,000 webhooks.

Run: ``.venv/bin/python -m tests.benchmarks.bench_coverage [shared_dir]``
(not a pytest test). The cluster is the corpus' webhooks repeated to 1,000
(200 configurations of 5), the v1.33 discovery snapshot plus CRD-like groups
to about 300 resources, and 50 namespaces. Targets: a who-intercepts query
under 50 ms, the coverage of every webhook under 1 s.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from itertools import cycle, islice
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from webhooks_ui.domain.coverage import (
    cluster_coverage,
    prepare_configurations,
    who_intercepts,
)
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.discovery import (
    ApiResource,
    ResourceTable,
    parse_discovery,
)
from webhooks_ui.domain.kinds import API_VERSION_V1, KINDS

DEFAULT_SHARED = Path(__file__).resolve().parents[3] / "shared"
WEBHOOKS = 1000
PER_CONFIGURATION = 5
TARGET_RESOURCES = 300
NAMESPACE_COUNT = 50
ROUNDS = 5
QUERY_TARGET_MS = 50
COVERAGE_TARGET_MS = 1000


def corpus_webhooks(corpus_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    yaml = YAML(typ="safe")
    found = []
    for path in sorted(corpus_dir.glob("*.yaml")):
        for document in yaml.load_all(path.read_text()):
            if (
                isinstance(document, dict)
                and document.get("kind") in KINDS
                and document.get("apiVersion") == API_VERSION_V1
            ):
                defaulted = apply_defaults(document)
                found.extend((defaulted["kind"], w) for w in defaulted["webhooks"])
    return found


def cluster_configurations(webhooks: list[tuple[str, dict]]) -> list[dict]:
    repeated = list(islice(cycle(webhooks), WEBHOOKS))
    configurations = []
    for start in range(0, WEBHOOKS, PER_CONFIGURATION):
        chunk = repeated[start : start + PER_CONFIGURATION]
        number = start // PER_CONFIGURATION
        configurations.append(
            {
                "apiVersion": API_VERSION_V1,
                "kind": chunk[0][0],
                "metadata": {"name": f"configuration-{number:04d}"},
                "webhooks": [
                    {**webhook, "name": f"w{index}.c{number}.example.com"}
                    for index, (_kind, webhook) in enumerate(chunk)
                ],
            }
        )
    return configurations


def cluster_resources(snapshot: dict) -> list[ApiResource]:
    rows = parse_discovery(snapshot)
    verbs = ("create", "delete", "get", "list", "patch", "update", "watch")
    number = 0
    while len(rows) < TARGET_RESOURCES:
        group = f"crd{number}.example.com"
        for version in ("v1", "v1beta1"):
            preferred = version == "v1"
            rows.append(
                ApiResource(
                    group, version, "things", "", "Thing", True, verbs, preferred
                )
            )
            rows.append(
                ApiResource(
                    group, version, "things", "status", "Thing", True, verbs, preferred
                )
            )
        number += 1
    return rows


def namespaces() -> list[dict]:
    result = [{"name": "kube-system", "labels": {"control-plane": "true"}}]
    for number in range(NAMESPACE_COUNT - 1):
        labels = {"kubernetes.io/metadata.name": f"team-{number}"}
        if number % 3 == 0:
            labels["istio-injection"] = "enabled"
        result.append({"name": f"team-{number}", "labels": labels})
    return result


def best_ms(action: Callable[[], object]) -> float:
    timings = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()
        timings.append((time.perf_counter() - start) * 1000)
    return min(timings)


def main(argv: list[str]) -> int:
    shared = Path(argv[1]) if len(argv) > 1 else DEFAULT_SHARED
    corpus_dir = shared / "corpus" / "webhooks"
    snapshot_path = shared / "corpus" / "discovery" / "kubernetes-v1.33-discovery.json"
    if not corpus_dir.is_dir() or not snapshot_path.is_file():
        print(f"{shared} has no corpus or discovery snapshot")
        return 1
    configurations = cluster_configurations(corpus_webhooks(corpus_dir))
    resources = cluster_resources(json.loads(snapshot_path.read_text()))
    cluster_namespaces = namespaces()
    request = {
        "operation": "CREATE",
        "group": "",
        "version": "v1",
        "resource": "pods",
        "subresource": "",
        "kind": "Pod",
        "name": "web-1",
        "namespace": "team-0",
        "namespace_labels": cluster_namespaces[1]["labels"],
        "object_labels": {"app": "web"},
        "old_object_labels": None,
    }
    sample = {"metadata": {"name": "web-1", "labels": {"app": "web"}}}
    user = {"username": "alice", "groups": ["system:authenticated"]}

    table = ResourceTable.build(resources)
    prepared = prepare_configurations(configurations)
    result = who_intercepts(prepared, request, resources=table)
    query_cold = best_ms(
        lambda: who_intercepts(configurations, request, resources=resources)
    )
    query_warm = best_ms(lambda: who_intercepts(prepared, request, resources=table))
    query_sample = best_ms(
        lambda: who_intercepts(
            prepared, request, resources=table, sample_object=sample, user=user
        )
    )
    coverage_cold = best_ms(
        lambda: cluster_coverage(
            configurations, resources=resources, namespaces=cluster_namespaces
        )
    )
    coverage_warm = best_ms(
        lambda: cluster_coverage(
            prepared, resources=table, namespaces=cluster_namespaces
        )
    )
    covered = sum(
        len(c.resources)
        for _h, c in cluster_coverage(
            prepared, resources=table, namespaces=cluster_namespaces
        )
    )

    print(
        f"cluster: {len(prepared.webhooks)} webhooks in {len(configurations)} "
        f"configurations, {len(resources)} resources, {len(cluster_namespaces)} "
        "namespaces"
    )
    print(
        f"who-intercepts (pod CREATE): {len(result.webhooks)} match, "
        f"{len(result.not_matching)} do not"
    )
    print(f"  from plain lists (compile + index each time): {query_cold:.1f} ms")
    print(
        f"  prepared configurations + resource table: {query_warm:.1f} ms "
        f"(target < {QUERY_TARGET_MS} ms)"
    )
    print(f"  prepared, with matchConditions on a sample: {query_sample:.1f} ms")
    print(f"full coverage: {covered} (webhook, resource) pairs")
    print(f"  from plain lists: {coverage_cold:.1f} ms")
    print(
        f"  prepared configurations + resource table: {coverage_warm:.1f} ms "
        f"(target < {COVERAGE_TARGET_MS} ms)"
    )
    ok = query_warm < QUERY_TARGET_MS and coverage_cold < COVERAGE_TARGET_MS
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
