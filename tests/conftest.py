"""Shared fixtures: where ../shared lives, and skipping cleanly when it is absent."""

from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings

from webhooks_ui import tasks

# CI runs must be reproducible: same examples every run, bounded time.
hypothesis_settings.register_profile("default", max_examples=150, deadline=None)
hypothesis_settings.register_profile(
    "ci", max_examples=150, deadline=None, derandomize=True, print_blob=True
)
hypothesis_settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    # Tests create many users with passwords: a deliberately slow hash (the
    # production setting) would cost ~0.3 s each. Tests only.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _shared_path(*parts: str) -> Path:
    path = Path(settings.SHARED_DIR, *parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared (spec and corpus) is not checked out")
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return _shared_path("corpus", "webhooks")


@pytest.fixture(scope="session")
def corpus_v1beta1_dir() -> Path:
    return _shared_path("corpus", "webhooks-v1beta1")


@pytest.fixture(scope="session")
def discovery_snapshot() -> Path:
    return _shared_path("corpus", "discovery", "kubernetes-v1.33-discovery.json")


@pytest.fixture(autouse=True)
def _background_tasks_finish_within_the_test():
    """A task started by a test (e.g. "Sync now") must not outlive it: it would
    touch the database after the test's teardown."""
    yield
    assert tasks.drain(timeout=60), "background tasks still running after 60 s"
