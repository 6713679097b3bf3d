"""``make run``: migrate, start sandboxes if needed, sync, and serve on 127.0.0.1.

Settings read the environment at import, so DEBUG comes from DASHBOARD_DEBUG
(the Makefile exports DASHBOARD_DEBUG=1). Without it, static files are still
served (runserver's ``--insecure``) so the pages work either way.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

import webhooks_ui.sandbox
from webhooks_ui.management.commands.sync_clusters import describe_run
from webhooks_ui.models import Cluster
from webhooks_ui.sandbox.server import SandboxServer
from webhooks_ui.services.clusters import cluster_register
from webhooks_ui.services.risk import clusters_sync_and_analyse

SANDBOXES = ("dev", "staging", "prod")
ADMIN_USERNAME = "admin"


class Command(BaseCommand):
    help = "Run the dashboard locally, with sandbox clusters when none is registered."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--sandbox",
            action="store_true",
            help="Start the sandboxes even when real clusters are registered",
        )
        parser.add_argument(
            "--no-serve",
            action="store_true",
            help="Prepare everything, then exit instead of serving (for checks)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        sandboxes = self._start_sandboxes(force=options["sandbox"])
        try:
            for run in clusters_sync_and_analyse(triggered_by="runlocal"):
                self.stdout.write(describe_run(run))
            password = ensure_admin(settings.LOCAL_DIR / "admin-password")
            self.stdout.write(
                f"Sign in at http://127.0.0.1:{options['port']}/ as "
                f"{ADMIN_USERNAME} / {password}"
            )
            if not settings.DEBUG:
                self.stdout.write(
                    "DEBUG is off (set DASHBOARD_DEBUG=1 before starting); "
                    "serving static files anyway."
                )
            if not options["no_serve"]:
                call_command(
                    "runserver",
                    f"127.0.0.1:{options['port']}",
                    use_reloader=False,
                    insecure_serving=True,
                )
        finally:
            for sandbox in sandboxes:
                sandbox.stop()

    def _start_sandboxes(self, *, force: bool) -> list[SandboxServer]:
        if os.environ.get("DASHBOARD_SANDBOX", "").strip() in {"0", "false", "no"}:
            return []
        real = Cluster.objects.filter(is_sandbox=False).exists()
        if real and not force:
            return []
        state_dir = settings.LOCAL_DIR / "sandbox"
        state_dir.mkdir(parents=True, exist_ok=True)
        seeds = Path(webhooks_ui.sandbox.__file__).parent / "seeds"
        started = []
        for name in SANDBOXES:
            seed_dir = seeds / name
            sandbox = SandboxServer(
                name=name,
                seed_dir=seed_dir if seed_dir.is_dir() else None,
                state_file=state_dir / f"{name}.json",
            ).start()
            started.append(sandbox)
            cluster_register(
                name=name,
                environment=name,
                display_name=f"{name} (sandbox)",
                kubeconfig_text=yaml.safe_dump(sandbox.kubeconfig()),
                is_sandbox=True,
                replace=True,
            )
            self.stdout.write(f"Sandbox {name} listening on {sandbox.url}")
        return started


def ensure_admin(password_file: Path) -> str:
    """Make sure the local superuser exists; its password lives in ``password_file``.

    Created once; later starts reuse both (a password changed in the app stays).
    """
    users = get_user_model()
    user = users.objects.filter(username=ADMIN_USERNAME).first()
    if password_file.exists() and user is not None:
        return password_file.read_text().strip()
    if password_file.exists():
        password = password_file.read_text().strip()
    else:
        password = secrets.token_urlsafe(12)
        password_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
    if user is None:
        users.objects.create_superuser(ADMIN_USERNAME, "", password)
    else:
        user.set_password(password)
        user.save(update_fields=["password"])
    return password
