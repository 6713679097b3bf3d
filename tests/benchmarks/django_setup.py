"""Django for a benchmark process: a throw-away database, migrated."""

from __future__ import annotations

import os


def configure_django(tmp: str) -> None:
    """Settings read the environment at import: point everything at ``tmp``
    (SQLite there, unless BENCH_DATABASE_URL names another database)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    os.environ["DASHBOARD_LOCAL_DIR"] = tmp
    if "BENCH_DATABASE_URL" in os.environ:
        os.environ["DATABASE_URL"] = os.environ["BENCH_DATABASE_URL"]
    else:
        os.environ.pop("DATABASE_URL", None)  # SQLite in DASHBOARD_LOCAL_DIR
    os.environ.setdefault("DASHBOARD_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
