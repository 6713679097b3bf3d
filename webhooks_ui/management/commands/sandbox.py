"""``manage.py sandbox serve``: one sandbox cluster in the foreground until Ctrl-C."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webhooks_ui.sandbox.seed_loader import builtin_seed_names, resolve_seed
from webhooks_ui.sandbox.server import SandboxServer


class Command(BaseCommand):
    help = "Run a sandbox Kubernetes API server (HTTPS on loopback) for the dashboard."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        serve = actions.add_parser("serve", help="serve one sandbox cluster")
        serve.add_argument("--name", default="dev", help="cluster name (default dev)")
        serve.add_argument("--host", default="127.0.0.1")
        serve.add_argument("--port", type=int, default=6443)
        serve.add_argument(
            "--seed",
            default=None,
            help=(
                "seed directory, or a built-in set: "
                f"{', '.join(builtin_seed_names())} (default: the --name set if any)"
            ),
        )
        serve.add_argument("--kubeconfig-out", type=Path, required=True)
        serve.add_argument("--readonly-kubeconfig-out", type=Path, default=None)
        serve.add_argument(
            "--state-file",
            type=Path,
            default=None,
            help="persist objects, CA and tokens here; seeds load only if absent",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seed = options["seed"]
        if seed is None and options["name"] in builtin_seed_names():
            seed = options["name"]
        try:
            seed_dir = resolve_seed(seed) if seed else None
        except FileNotFoundError as exc:
            raise CommandError(str(exc)) from exc
        sandbox = SandboxServer(
            name=options["name"],
            seed_dir=seed_dir,
            host=options["host"],
            port=options["port"],
            state_file=options["state_file"],
        )
        try:
            sandbox.start()
        except OSError as exc:
            raise CommandError(
                f"cannot listen on port {options['port']}: {exc}"
            ) from exc
        stopped = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stopped.set())
        try:
            path = sandbox.write_kubeconfig(options["kubeconfig_out"])
            self.stdout.write(
                f"Sandbox cluster {sandbox.name!r} serving at {sandbox.url}"
            )
            self.stdout.write(f"kubeconfig: {path}")
            if options["readonly_kubeconfig_out"]:
                readonly = sandbox.write_kubeconfig(
                    options["readonly_kubeconfig_out"], readonly=True
                )
                self.stdout.write(f"read-only kubeconfig: {readonly}")
            self.stdout.write("Press Ctrl-C to stop.")
            self.stdout.flush()
            while not stopped.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            sandbox.stop()
            self.stdout.write("Sandbox stopped.")
