"""Register a cluster: ``manage.py add_cluster --name prod --kubeconfig FILE``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webhooks_ui.services.clusters import (
    ClusterRegistrationError,
    cluster_register,
    cluster_test_connection,
)


class Command(BaseCommand):
    help = (
        "Register a cluster from a kubeconfig, a server URL with a token, or the "
        "pod's in-cluster service account. Credentials are stored encrypted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="Unique slug, e.g. prod-eu")
        parser.add_argument("--environment", default="", help="Free label")
        parser.add_argument("--display-name", default="")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--kubeconfig", type=Path, help="kubeconfig file")
        source.add_argument("--server", help="API server URL (with --token-file)")
        source.add_argument("--in-cluster", action="store_true")
        parser.add_argument("--context", help="kubeconfig context (default: current)")
        parser.add_argument("--token-file", type=Path)
        parser.add_argument("--ca-file", type=Path)
        parser.add_argument(
            "--allow-insecure",
            action="store_true",
            help="Accept insecure-skip-tls-verify (not recommended)",
        )
        parser.add_argument(
            "--replace", action="store_true", help="Update an existing cluster"
        )
        parser.add_argument(
            "--test", action="store_true", help="Test the connection afterwards"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        kwargs: dict[str, Any] = {
            "name": options["name"],
            "environment": options["environment"],
            "display_name": options["display_name"],
            "allow_insecure": options["allow_insecure"],
            "replace": options["replace"],
        }
        if options["kubeconfig"]:
            path: Path = options["kubeconfig"].expanduser()
            kwargs["kubeconfig_text"] = _read(path, "kubeconfig")
            kwargs["kubeconfig_dir"] = path.resolve().parent
            kwargs["context"] = options["context"]
        elif options["server"]:
            if not options["token_file"]:
                raise CommandError("--server needs --token-file (and --ca-file).")
            kwargs["server"] = options["server"]
            kwargs["token"] = _read(options["token_file"], "token file")
            if options["ca_file"]:
                kwargs["ca_pem"] = _read(options["ca_file"], "CA file")
        else:
            kwargs["in_cluster"] = True
        if options["context"] and not options["kubeconfig"]:
            raise CommandError("--context only applies with --kubeconfig.")
        try:
            cluster = cluster_register(**kwargs)
        except ClusterRegistrationError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Registered cluster {cluster.name} ({cluster.api_server_url}, "
            f"{cluster.get_auth_method_display()})."
        )
        if options["test"]:
            report = cluster_test_connection(cluster=cluster)
            if not report.ok:
                raise CommandError(f"Connection test failed: {report.summary()}")
            self.stdout.write(f"Connection test: {report.summary()}")


def _read(path: Path, what: str) -> str:
    try:
        return Path(path).expanduser().read_text()
    except OSError as exc:
        raise CommandError(f"Cannot read the {what} {path}: {exc.strerror}.") from None
