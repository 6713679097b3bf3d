"""Sync clusters once (``manage.py sync_clusters``) or keep syncing (``--watch``)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webhooks_ui.kube.watch import WatchEvent
from webhooks_ui.models import Cluster, SyncRun
from webhooks_ui.services.risk import clusters_sync_and_analyse
from webhooks_ui.services.watch import clusters_watch


class Command(BaseCommand):
    help = (
        "Read webhook configurations from clusters into the database. With "
        "--watch, keep them current from watch events until interrupted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--cluster",
            action="append",
            default=[],
            metavar="NAME",
            help="Only this cluster (repeatable); default: all",
        )
        parser.add_argument(
            "--watch", action="store_true", help="Keep watching after the sync"
        )

    def make_stop_event(self) -> threading.Event:
        """The event that ends ``--watch`` (SIGINT/SIGTERM set it)."""
        return threading.Event()

    def handle(self, *args: Any, **options: Any) -> None:
        clusters = self._clusters(options["cluster"])
        if not clusters:
            self.stdout.write("No clusters registered (see manage.py add_cluster).")
            return
        runs = clusters_sync_and_analyse(
            clusters=clusters, triggered_by="sync_clusters"
        )
        for run in runs:
            self.stdout.write(describe_run(run))
        failed = [run for run in runs if run.status != SyncRun.Status.SUCCEEDED]
        if options["watch"]:
            self._watch(clusters, runs)
        if failed:
            raise CommandError(
                f"{len(failed)} of {len(runs)} clusters failed to sync.", returncode=1
            )

    def _clusters(self, names: list[str]) -> list[Cluster]:
        if not names:
            return list(Cluster.objects.all())
        found = {c.name: c for c in Cluster.objects.filter(name__in=names)}
        unknown = sorted(set(names) - found.keys())
        if unknown:
            raise CommandError(f"Unknown cluster(s): {', '.join(unknown)}.")
        return [found[name] for name in dict.fromkeys(names)]

    def _watch(self, clusters: list[Cluster], runs: list[SyncRun]) -> None:
        stop = self.make_stop_event()
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, lambda *_: stop.set())
        versions = {
            run.cluster_id: run.resource_versions
            for run in runs
            if run.status == SyncRun.Status.SUCCEEDED
        }
        watchers = clusters_watch(
            clusters=clusters,
            stop=stop,
            initial_versions=versions,
            on_event=self._print_event,
        )
        self.stdout.write(f"Watching {len(watchers)} cluster(s); Ctrl-C to stop.")
        while not stop.wait(0.5):
            pass
        for watcher in watchers:
            watcher.join()
        self.stdout.write("Stopped watching.")

    def _print_event(self, cluster: str, event: WatchEvent) -> None:
        metadata = event.object.get("metadata") or {}
        self.stdout.write(
            f"{cluster}: {event.type} {event.object.get('kind')}/{metadata.get('name')}"
        )


def describe_run(run: SyncRun) -> str:
    """One line per cluster: outcome, counts and time, or the error."""
    seconds = run.duration.total_seconds() if run.duration else 0.0
    if run.status == SyncRun.Status.SUCCEEDED:
        return (
            f"{run.cluster.name}: ok in {seconds:.2f}s: {run.created_count} created, "
            f"{run.updated_count} updated, {run.deleted_count} deleted, "
            f"{run.unchanged_count} unchanged"
        )
    return f"{run.cluster.name}: FAILED after {seconds:.2f}s: {run.error}"
