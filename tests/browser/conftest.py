"""Browser journeys: three sandbox clusters, the live dashboard, headless Chromium.

Every test here drives Debian's Chromium (``/usr/bin/chromium``) through
Playwright's sync API against pytest-django's ``live_server``. The test is
skipped, with the reason, when Chromium or Playwright is missing. Any console
error or uncaught page error (a CSP violation, a 404 static file, an htmx
error) fails the test. Each step can leave a full-page screenshot under
``artifacts/browser/<test name>/``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from django import db
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.backends.signals import connection_created

import webhooks_ui.sandbox
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.models import Cluster, ClusterMembership, SyncRun
from webhooks_ui.sandbox.server import SandboxServer
from webhooks_ui.services.clusters import cluster_register
from webhooks_ui.services.risk import clusters_sync_and_analyse

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
ARTIFACTS = Path(settings.BASE_DIR) / "artifacts" / "browser"
SEEDS = Path(webhooks_ui.sandbox.__file__).parent / "seeds"
SANDBOXES = ("dev", "staging", "prod")
ADMISSION_V1 = "admissionregistration.k8s.io/v1"
# Every wait is bounded; nothing in these journeys should take longer.
TIMEOUT_MS = 10_000
PASSWORD = "journey-passphrase-7f3a"


@pytest.fixture(scope="module", autouse=True)
def _allow_orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an asyncio loop in the test thread, which makes
    Django refuse ORM calls there; only for these tests, allow them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="module", autouse=True)
def _sqlite_readers_do_not_lock(
    django_db_setup: None, django_db_blocker: Any
) -> Iterator[None]:
    """Let background syncs write while the live server reads, as on a real database.

    The in-memory SQLite test database is one shared-cache database: there a
    reader takes table locks and a concurrent writer fails at once with "database
    table is locked" (no busy timeout applies), which a file database or
    PostgreSQL never does. Readers in read-uncommitted mode take no such locks.
    Only for these tests, and only for an in-memory SQLite test database.
    """

    def relax(connection: Any) -> None:
        if connection.vendor == "sqlite" and connection.is_in_memory_db():
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA read_uncommitted = 1")

    def on_created(sender: Any, connection: Any, **kwargs: Any) -> None:
        relax(connection)

    with django_db_blocker.unblock():
        relax(db.connection)
    connection_created.connect(on_created)
    yield
    connection_created.disconnect(on_created)
    if db.connection.vendor == "sqlite" and db.connection.is_in_memory_db():
        with django_db_blocker.unblock(), db.connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 0")


@pytest.fixture(scope="module")
def browser(_allow_orm_beside_playwright: None) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium package")
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=TIMEOUT_MS)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@dataclass
class BrowserErrors:
    """Console errors and uncaught exceptions seen by a page, minus allowed ones."""

    seen: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow(self, pattern: str) -> None:
        """Expect errors matching ``pattern`` (e.g. the console line of a 404 page
        the test visits on purpose)."""
        self.allowed.append(re.compile(pattern))

    def record(self, text: str) -> None:
        self.seen.append(text)

    @property
    def unexpected(self) -> list[str]:
        return [
            text
            for text in self.seen
            if not any(pattern.search(text) for pattern in self.allowed)
        ]

    def assert_none(self) -> None:
        unexpected = self.unexpected
        assert not unexpected, "Browser reported errors:\n" + "\n".join(unexpected)


@pytest.fixture
def browser_errors() -> BrowserErrors:
    # Nothing allowed: every page links its favicon, so any 404 is a bug.
    return BrowserErrors()


@pytest.fixture
def page(
    browser: Any, live_server: Any, browser_errors: BrowserErrors
) -> Iterator[Any]:
    """A fresh browser context and page; fails the test on any browser error."""
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 1280, "height": 900},
        accept_downloads=True,
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.set_default_navigation_timeout(TIMEOUT_MS)
    page = context.new_page()

    def on_console(message: Any) -> None:
        if message.type == "error":
            location = message.location or {}
            browser_errors.record(
                f"console error: {message.text} ({location.get('url', '')})"
            )

    def on_response(response: Any) -> None:
        if response.status >= 400 and "/static/" in response.url:
            browser_errors.record(f"HTTP {response.status} for {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: browser_errors.record(f"page error: {error}"))
    page.on("response", on_response)
    yield page
    # Close before the database is flushed: no poll may hit a half-empty database.
    context.close()
    browser_errors.assert_none()


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[[Any, str], Path]:
    """``shot(page, "step")``: a full-page screenshot, numbered in step order."""
    directory = ARTIFACTS / re.sub(r"[^\w.-]+", "_", request.node.name)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    counter = iter(range(1, 100))

    def take(page: Any, name: str) -> Path:
        step = re.sub(r"[^\w.-]+", "-", name).strip("-")
        path = directory / f"{next(counter):02d}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def sandboxes() -> Iterator[dict[str, SandboxServer]]:
    """The three built-in sandboxes, fresh per test (journeys change them)."""
    started: dict[str, SandboxServer] = {}
    try:
        for name in SANDBOXES:
            started[name] = SandboxServer(name=name, seed_dir=SEEDS / name).start()
        yield started
    finally:
        for sandbox in started.values():
            sandbox.stop()


@pytest.fixture
def clusters(
    transactional_db: None, sandboxes: dict[str, SandboxServer]
) -> dict[str, Cluster]:
    """The sandboxes registered as clusters and synced once."""
    registered = {
        name: cluster_register(
            name=name,
            environment=name,
            kubeconfig_text=yaml.safe_dump(sandbox.kubeconfig()),
            is_sandbox=True,
        )
        for name, sandbox in sandboxes.items()
    }
    for run in clusters_sync_and_analyse(triggered_by="browser tests"):
        assert run.status == SyncRun.Status.SUCCEEDED, run.error
    return registered


@dataclass(frozen=True)
class Account:
    username: str
    password: str


@pytest.fixture
def operator(clusters: dict[str, Cluster]) -> Account:
    """An ordinary user who is operator (may read and sync) on every cluster."""
    user = get_user_model().objects.create_user("olive", password=PASSWORD)
    for cluster in clusters.values():
        ClusterMembership.objects.create(
            cluster=cluster, user=user, role=ClusterMembership.Role.OPERATOR
        )
    return Account("olive", PASSWORD)


@pytest.fixture
def outsider(clusters: dict[str, Cluster]) -> Account:
    """A user with no role on any cluster."""
    get_user_model().objects.create_user("nemo", password=PASSWORD)
    return Account("nemo", PASSWORD)


def expected_counts(sandbox: SandboxServer) -> dict[str, int]:
    """What a cluster card should say, read from the sandbox itself."""
    configurations = [
        obj for kind in KINDS for obj in sandbox.store.list(ADMISSION_V1, kind)
    ]
    webhooks = [hook for obj in configurations for hook in obj.get("webhooks") or []]
    fail_closed = [hook for hook in webhooks if hook.get("failurePolicy") != "Ignore"]
    return {
        "configurations": len(configurations),
        "webhooks": len(webhooks),
        "fail-closed": len(fail_closed),
    }
