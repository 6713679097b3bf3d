"""Benchmark: sync 1,000 configurations (5 webhooks each) from a sandbox.

Run with ``.venv/bin/python -m tests.benchmarks.bench_sync``. Prints our sync
time next to a bare ``kubernetes`` client listing the same objects in the same
run (target: within 1.3x), then a second, unchanged sync and the rows it wrote.
Uses a throw-away SQLite database unless BENCH_DATABASE_URL is set.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from tests.benchmarks.django_setup import configure_django

CONFIGURATIONS = 1000
WEBHOOKS = 5
NAMESPACES = 5
ROUNDS = 3


def _objects() -> list[dict[str, Any]]:
    from tests import factories
    from webhooks_ui.domain.kinds import MUTATING, VALIDATING

    objects: list[dict[str, Any]] = []
    for index in range(NAMESPACES):
        objects.extend(factories.backend(f"hooks-{index}", "svc"))
    for index in range(CONFIGURATIONS):
        kind = MUTATING if index % 2 else VALIDATING
        objects.append(
            factories.configuration(
                f"config-{index:04d}",
                kind=kind,
                webhooks=WEBHOOKS,
                service=(f"hooks-{index % NAMESPACES}", "svc"),
            )
        )
    return objects


def _best(fn: Callable[[], Any], rounds: int = ROUNDS) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def _bare_lister(kubeconfig: dict[str, Any], page_size: int) -> Callable[[], int]:
    from kubernetes import client as k8s
    from kubernetes import config as k8s_config

    api_client = k8s_config.new_client_from_config_dict(kubeconfig)
    api = k8s.AdmissionregistrationV1Api(api_client)

    def list_both() -> int:
        count = 0
        for method in (
            api.list_mutating_webhook_configuration,
            api.list_validating_webhook_configuration,
        ):
            token = None
            while True:
                page = method(limit=page_size, _continue=token)
                count += len(page.items)
                token = page.metadata._continue
                if not token:
                    break
        return count

    return list_both


def _write_counter() -> tuple[Callable[..., Any], dict[str, int]]:
    counts = {"rows": 0, "syncrun_statements": 0, "audit_rows": 0}

    def wrapper(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        verb = sql.lstrip().split(" ", 1)[0].upper()
        if verb in {"INSERT", "UPDATE", "DELETE"}:
            if "webhooks_ui_syncrun" in sql:
                counts["syncrun_statements"] += 1
            elif "webhooks_ui_auditevent" in sql:
                # Every sync is audited (one event per run), changed or not.
                counts["audit_rows"] += max(context["cursor"].rowcount, 1)
            else:
                counts["rows"] += max(context["cursor"].rowcount, 1)
        return result

    return wrapper, counts


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        configure_django(tmp)
        from django.conf import settings
        from django.db import connection

        from tests import factories
        from webhooks_ui.models import WebhookConfiguration
        from webhooks_ui.sandbox.server import SandboxServer
        from webhooks_ui.services.sync import cluster_sync

        page_size = settings.SYNC_PAGE_SIZE
        print(
            f"Sandbox with {CONFIGURATIONS} configurations x {WEBHOOKS} webhooks, "
            f"page size {page_size}"
        )
        with SandboxServer(name="bench", objects=_objects()) as sandbox:
            bare = _bare_lister(sandbox.kubeconfig(), page_size)
            listed = bare()  # warm the connection
            bare_time, _ = _best(bare)
            print(
                f"bare kubernetes client, list both kinds: {bare_time:.3f}s ({listed})"
            )

            cluster = factories.sandbox_cluster(sandbox, name="bench")
            start = time.perf_counter()
            first = cluster_sync(cluster=cluster)
            first_time = time.perf_counter() - start
            assert first.status == "succeeded", first.error
            assert WebhookConfiguration.objects.count() == CONFIGURATIONS
            first_verdict = "OK" if first_time <= 1.3 * bare_time else "ABOVE TARGET"
            print(
                f"first sync (creates everything): {first_time:.3f}s = "
                f"{first_time / bare_time:.2f}x bare [target 1.3x: {first_verdict}]"
            )

            wrapper, counts = _write_counter()
            times = []
            for _ in range(ROUNDS):
                start = time.perf_counter()
                with connection.execute_wrapper(wrapper):
                    run = cluster_sync(cluster=cluster)
                times.append(time.perf_counter() - start)
                assert run.status == "succeeded", run.error
            second = min(times)
            verdict = "OK" if second <= 1.3 * bare_time else "ABOVE TARGET"
            print(
                f"unchanged sync: {second:.3f}s (median "
                f"{statistics.median(times):.3f}s) = {second / bare_time:.2f}x bare "
                f"[target 1.3x: {verdict}]"
            )
            print(
                f"rows written by {ROUNDS} unchanged syncs: {counts['rows']} "
                f"(besides {counts['syncrun_statements']} SyncRun insert/update "
                f"statements and {counts['audit_rows']} audit events)"
            )
        return 0 if counts["rows"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
