"""Benchmark: server time and queries of the review pages at fleet size.

Run with ``.venv/bin/python -m tests.benchmarks.bench_pages`` (add ``--profile``
to profile the overview even when it meets its target). Fills a throw-away
SQLite database (in a temp dir, through DASHBOARD_LOCAL_DIR) with 20 clusters x
250 configurations x 5 webhooks, rows built the way sync builds them (same
hashes and counts), plus revisions, sync runs, namespaces and services. Then
requests each page with Django's test client as a signed-in superuser: a
warm-up request (whose queries are counted), then ROUNDS timed requests.

Target: the overview under 150 ms (median and 95th percentile). When it misses,
the overview is profiled and the top costs printed. Exit code 1 on a miss.
"""

from __future__ import annotations

import base64
import copy
import cProfile
import hashlib
import io
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.benchmarks.django_setup import configure_django

CLUSTERS = 20
CONFIGURATIONS = 250
WEBHOOKS = 5
ROUNDS = 30
WARMUP = 3
TARGET_MS = 150.0
ENVIRONMENTS = ("dev", "staging", "prod")
PRODUCTS = (
    "cert-manager",
    "kyverno",
    "istio",
    "gatekeeper",
    "vault-agent",
    "linkerd",
    "ingress-nginx",
    "policy-controller",
    "external-secrets",
    "knative",
)
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SEARCH = "ingress"


# --- realistic objects ----------------------------------------------------------


def _ca_bundle(cluster: int, product: str) -> str:
    """A PEM-sized, per-cluster caBundle (the injected kind differs everywhere)."""
    seed = hashlib.sha256(f"{cluster}/{product}".encode()).digest()
    body = base64.b64encode(seed * 24).decode()
    pem = "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n"
    return base64.b64encode(pem.encode()).decode()


def _webhook(
    config_name: str,
    index: int,
    *,
    product: str,
    mutating: bool,
    cluster: int,
    timeout: int,
    failure_policy: str,
) -> dict[str, Any]:
    rules = [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["pods", "configmaps"][: 1 + index % 2],
            "scope": "Namespaced",
        }
    ]
    if index % 2:
        rules.append(
            {
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE", "DELETE"],
                "resources": ["deployments", "statefulsets", "daemonsets"],
                "scope": "*",
            }
        )
    webhook: dict[str, Any] = {
        "name": f"w{index}.{config_name}.example.io",
        "admissionReviewVersions": ["v1", "v1beta1"],
        "clientConfig": {
            "service": {
                "namespace": f"{product}-system",
                "name": f"{product}-webhook",
                "path": f"/{'mutate' if mutating else 'validate'}/{index}",
                "port": 443,
            },
            "caBundle": _ca_bundle(cluster, product),
        },
        "rules": rules,
        "failurePolicy": failure_policy,
        "matchPolicy": "Equivalent",
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "NotIn",
                    "values": ["kube-system", f"{product}-system"],
                }
            ]
        },
        "objectSelector": {},
        "sideEffects": "None" if index % 3 else "NoneOnDryRun",
        "timeoutSeconds": timeout,
    }
    if mutating:
        webhook["reinvocationPolicy"] = "IfNeeded" if index == 0 else "Never"
    if index == 4:
        webhook["matchConditions"] = [
            {
                "name": "exclude-leases",
                "expression": 'request.resource.resource != "leases"',
            }
        ]
    return webhook


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str
    product: str
    timeout: int
    failure_policy: str
    extra_label: str


def _variant(config: int, cluster: int) -> Variant | None:
    """What configuration ``config`` looks like on ``cluster`` (None: absent).

    A mix like a real fleet: most rows identical everywhere, some with a
    per-environment timeout, some with one drifted cluster, some missing on a
    few clusters, a few only on one cluster.
    """
    from webhooks_ui.domain.kinds import MUTATING, VALIDATING

    product = PRODUCTS[config % len(PRODUCTS)]
    kind = MUTATING if config % 3 == 0 else VALIDATING
    environment = ENVIRONMENTS[cluster % len(ENVIRONMENTS)]
    name = f"{product}-{config:03d}"
    timeout, policy, label = 10, "Fail", ""
    bucket = config % 10
    if bucket == 1:  # tuned per environment: three variants
        timeout = {"dev": 5, "staging": 10, "prod": 15}[environment]
    elif bucket == 2 and cluster == config % CLUSTERS:  # one cluster drifted
        policy = "Ignore"
    elif bucket == 3 and (cluster + config) % 6 == 0:  # not rolled out everywhere
        return None
    elif bucket == 4 and config % 40 == 4:  # a local experiment on one cluster
        name = f"{product}-debug-{cluster:02d}-{config:03d}"
    elif bucket == 5:
        label = environment  # a label that differs per environment
    return Variant(name, kind, product, timeout, policy, label)


def _raw(variant: Variant, cluster: int, resource_version: int) -> dict[str, Any]:
    from webhooks_ui.domain.kinds import API_VERSION_V1, MUTATING

    mutating = variant.kind == MUTATING
    labels = {
        "app.kubernetes.io/name": variant.product,
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/version": "v1.14.2",
    }
    if variant.extra_label:
        labels["example.io/environment"] = variant.extra_label
    uid = hashlib.md5(f"{cluster}/{variant.name}".encode()).hexdigest()  # noqa: S324
    return {
        "apiVersion": API_VERSION_V1,
        "kind": variant.kind,
        "metadata": {
            "name": variant.name,
            "uid": f"{uid[:8]}-{uid[8:12]}-{uid[12:16]}-{uid[16:20]}-{uid[20:]}",
            "resourceVersion": str(resource_version),
            "generation": 1,
            "creationTimestamp": "2026-03-01T10:00:00Z",
            "labels": labels,
            "annotations": {
                "meta.helm.sh/release-name": variant.product,
                "meta.helm.sh/release-namespace": f"{variant.product}-system",
                # cert-manager writes each cluster's caBundle: not a difference.
                "cert-manager.io/inject-ca-from": (
                    f"{variant.product}-system/{variant.product}-webhook-tls"
                ),
            },
            "managedFields": [
                {
                    "manager": "helm",
                    "operation": "Update",
                    "apiVersion": API_VERSION_V1,
                    "time": "2026-03-01T10:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {}}, "f:webhooks": {}},
                }
            ],
        },
        "webhooks": [
            _webhook(
                variant.name,
                index,
                product=variant.product,
                mutating=mutating,
                cluster=cluster,
                timeout=variant.timeout,
                failure_policy=variant.failure_policy,
            )
            for index in range(WEBHOOKS)
        ],
    }


# --- filling the database ---------------------------------------------------------


def _fill() -> dict[str, Any]:
    """Rows as a sync would write them; returns what the page requests need."""
    from django.contrib.auth import get_user_model

    from webhooks_ui.domain.normalize import fingerprint
    from webhooks_ui.models import (
        Cluster,
        ConfigurationRevision,
        Namespace,
        Service,
        SyncRun,
        WebhookConfiguration,
    )
    from webhooks_ui.services.snapshot import content_hash, webhook_counts

    clusters = Cluster.objects.bulk_create(
        [
            Cluster(
                name=f"cluster-{index:02d}",
                environment=ENVIRONMENTS[index % len(ENVIRONMENTS)],
                api_server_url=f"https://10.0.{index}.1:6443",
                auth_method=Cluster.AuthMethod.TOKEN,
            )
            for index in range(CLUSTERS)
        ]
    )
    clusters = list(Cluster.objects.order_by("name"))
    fingerprints: dict[str, str] = {}
    configurations: list[WebhookConfiguration] = []
    for position, cluster in enumerate(clusters):
        for config in range(CONFIGURATIONS):
            variant = _variant(config, position)
            if variant is None:
                continue
            raw = _raw(variant, position, 1000 + config)
            digest = content_hash(raw)
            # Copies differ in caBundle, uid and resourceVersion only when
            # "identical": normalise each distinct content once, as sync does
            # once per changed object.
            if digest not in fingerprints:
                fingerprints[digest] = fingerprint(raw)
            webhooks, fail_closed = webhook_counts(raw)
            configurations.append(
                WebhookConfiguration(
                    cluster=cluster,
                    kind=variant.kind,
                    name=variant.name,
                    uid=raw["metadata"]["uid"],
                    resource_version=raw["metadata"]["resourceVersion"],
                    generation=1,
                    raw=raw,
                    content_hash=digest,
                    comparison_hash=fingerprints[digest],
                    webhook_count=webhooks,
                    fail_closed_count=fail_closed,
                    revision_count=2 if config % 25 == 0 else 1,
                    first_seen=NOW - timedelta(days=30),
                    last_changed=NOW - timedelta(days=config % 30),
                    # A few were deleted from their cluster (history kept).
                    deleted_at=NOW if config % 97 == 96 else None,
                )
            )
    WebhookConfiguration.objects.bulk_create(configurations, batch_size=500)

    runs = []
    for cluster in clusters:
        for age in range(10, 0, -1):
            started = NOW - timedelta(hours=age)
            failed = age == 5
            runs.append(
                SyncRun(
                    cluster=cluster,
                    status="failed" if failed else "succeeded",
                    started_at=started,
                    finished_at=started + timedelta(seconds=2),
                    duration=timedelta(seconds=2),
                    unchanged_count=0 if failed else CONFIGURATIONS,
                    error="connection refused" if failed else "",
                    triggered_by="schedule",
                    server_version="v1.33.4",
                )
            )
    SyncRun.objects.bulk_create(runs, batch_size=500)

    revisions = []
    for row in WebhookConfiguration.objects.all().iterator(chunk_size=500):
        first = row.raw
        if row.revision_count == 2:
            # Created with a longer timeout; a later sync saw it lowered.
            first = copy.deepcopy(row.raw)
            first["webhooks"][0]["timeoutSeconds"] += 5
            revisions.append(
                ConfigurationRevision(
                    configuration=row,
                    number=2,
                    change="modified",
                    raw=row.raw,
                    resource_version=row.resource_version,
                    content_hash=row.content_hash,
                    observed_at=row.last_changed,
                )
            )
        revisions.append(
            ConfigurationRevision(
                configuration=row,
                number=1,
                change="created",
                raw=first,
                resource_version=str(int(row.resource_version) - 1),
                content_hash=content_hash(first),
                observed_at=row.first_seen,
            )
        )
    ConfigurationRevision.objects.bulk_create(revisions, batch_size=500)

    namespaces, services = [], []
    for cluster in clusters:
        for product in PRODUCTS:
            namespaces.append(
                Namespace(
                    cluster=cluster,
                    name=f"{product}-system",
                    labels={"kubernetes.io/metadata.name": f"{product}-system"},
                )
            )
            services.append(
                Service(
                    cluster=cluster,
                    namespace=f"{product}-system",
                    name=f"{product}-webhook",
                    ports=[{"port": 443, "targetPort": 8443, "protocol": "TCP"}],
                    ready_endpoint_count=2,
                )
            )
    Namespace.objects.bulk_create(namespaces, batch_size=500)
    Service.objects.bulk_create(services, batch_size=500)

    get_user_model().objects.create_superuser("bench", "", "bench-password-1")
    # A configuration with two revisions that differs across clusters.
    detail = WebhookConfiguration.objects.filter(
        cluster=clusters[7], revision_count=2, deleted_at__isnull=True
    ).first()
    return {
        "cluster": clusters[7].name,
        "kind": detail.kind,
        "name": detail.name,
        "rows": len(configurations),
        "revisions": len(revisions),
        "runs": len(runs),
        "distinct": len(set(fingerprints.values())),
    }


# --- measuring ----------------------------------------------------------------------


@dataclass
class Result:
    label: str
    path: str
    median_ms: float
    p95_ms: float
    queries: int
    sql_ms: float
    size_kb: float


def _measure(client: Any, label: str, path: str, **headers: Any) -> Result:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(WARMUP):
        response = client.get(path, **headers)
        assert response.status_code == 200, (path, response.status_code)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, **headers)
    assert response.status_code == 200, (path, response.status_code)
    # Read now: the captured list is a slice of a log the next request clears.
    queries = len(captured)
    sql_ms = sum(float(query["time"]) for query in captured.captured_queries) * 1000
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        client.get(path, **headers)
        times.append((time.perf_counter() - start) * 1000)
    p95 = statistics.quantiles(times, n=20, method="inclusive")[18]
    return Result(
        label,
        path,
        statistics.median(times),
        p95,
        queries,
        sql_ms,
        len(response.content) / 1024,
    )


def _profile(request: Callable[[], Any], rounds: int = 10, top: int = 25) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        request()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    out.write(f"\n== cumulative time, {rounds} requests ==\n")
    stats.sort_stats("cumulative").print_stats(top)
    out.write(f"\n== own time, {rounds} requests ==\n")
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def _breakdown(path: str, rounds: int = 10) -> str:
    """Median ms of the overview's two halves: building its data (queries and
    the matrix) and rendering the template, measured apart, without a profiler."""
    from django.contrib.auth import get_user_model
    from django.http import QueryDict
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    from webhooks_ui.permissions import Role, clusters_with_role, visible_clusters
    from webhooks_ui.review.overview import overview_build

    request = RequestFactory(HTTP_HOST="localhost").get(path)
    request.user = get_user_model().objects.get(username="bench")
    params = QueryDict(path.partition("?")[2])
    build, render = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        data = overview_build(
            visible=visible_clusters(request.user),
            can_sync=clusters_with_role(request.user, Role.OPERATOR),
            params=params,
            page_number=None,
        )
        build.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        render_to_string(
            "overview.html", {"nav": "overview", "overview": data}, request=request
        )
        render.append((time.perf_counter() - start) * 1000)
    return (
        f"  overview_build (queries + matrix of every row): "
        f"{statistics.median(build):.1f} ms\n"
        f"  template render ({len(data.page.object_list)} rows x "
        f"{len(data.columns)} clusters): {statistics.median(render):.1f} ms"
    )


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        configure_django(tmp)
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.urls import reverse

        start = time.perf_counter()
        data = _fill()
        print(
            f"Filled {connection.vendor} in {time.perf_counter() - start:.1f}s: "
            f"{CLUSTERS} clusters, {data['rows']} configurations x {WEBHOOKS} "
            f"webhooks ({data['distinct']} distinct fingerprints), "
            f"{data['revisions']} revisions, {data['runs']} sync runs"
        )
        client = Client(HTTP_HOST="localhost")
        client.force_login(get_user_model().objects.get(username="bench"))
        config_args = {
            "cluster": data["cluster"],
            "kind": data["kind"],
            "name": data["name"],
        }
        overview = reverse("overview")
        pages = [
            ("overview", overview, {}),
            ("overview only_different", overview + "?only_different=true", {}),
            (f"overview q={SEARCH}", overview + f"?q={SEARCH}", {}),
            (
                "overview matrix (htmx)",
                overview + "?only_different=true",
                {"HTTP_HX_REQUEST": "true"},
            ),
            ("configuration", reverse("configuration-detail", kwargs=config_args), {}),
            (
                "configuration history",
                reverse("configuration-history", kwargs=config_args),
                {},
            ),
            (
                "compare across clusters",
                reverse(
                    "configuration-compare",
                    kwargs={"kind": data["kind"], "name": data["name"]},
                ),
                {},
            ),
        ]
        results = [_measure(client, label, path, **h) for label, path, h in pages]

        print(f"\n{ROUNDS} requests each after {WARMUP} warm-up, times in ms:\n")
        header = (
            f"{'page':<26} {'median':>8} {'p95':>8} {'queries':>8} {'SQL ms':>7} "
            f"{'KiB':>7}"
        )
        print(header)
        print("-" * len(header))
        for r in results:
            print(
                f"{r.label:<26} {r.median_ms:>8.1f} {r.p95_ms:>8.1f} "
                f"{r.queries:>8} {r.sql_ms:>7.1f} {r.size_kb:>7.0f}"
            )
        overviews = [r for r in results if r.label.startswith("overview")]
        worst = max(overviews, key=lambda r: r.p95_ms)
        met = worst.p95_ms < TARGET_MS
        print(
            f"\nOverview target {TARGET_MS:.0f} ms (median and p95): "
            + ("OK" if met else f"ABOVE TARGET ({worst.label}: p95 {worst.p95_ms:.1f})")
        )
        if not met or "--profile" in argv:
            print(f"\nProfile of {worst.label} ({worst.path}):")
            print(_breakdown(worst.path))
            print(_profile(lambda: client.get(worst.path)))
        return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
