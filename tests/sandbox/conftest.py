"""Sandbox fixtures: every server is stopped by its fixture, whatever the test did."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config

from webhooks_ui.sandbox.seed_loader import resolve_seed
from webhooks_ui.sandbox.server import SandboxServer

from .factories import namespace, validating_configuration


@pytest.fixture
def sandbox() -> Iterator[SandboxServer]:
    """A small cluster: two namespaces and three validating configurations."""
    objects: list[dict[str, Any]] = [
        namespace("default"),
        namespace("team-a", team="a"),
        validating_configuration("alpha", labels={"tier": "gold", "team": "a"}),
        validating_configuration("bravo", labels={"tier": "silver", "team": "b"}),
        validating_configuration("charlie", labels={"tier": "gold"}),
    ]
    with SandboxServer(name="test", objects=objects, bookmark_interval=0.2) as sb:
        yield sb


@pytest.fixture(scope="module")
def dev_sandbox() -> Iterator[SandboxServer]:
    """The built-in dev seed set; read-only tests share one per module."""
    with SandboxServer(name="dev", seed_dir=resolve_seed("dev")) as sb:
        yield sb


@pytest.fixture
def admission_api(sandbox: SandboxServer) -> Iterator[k8s.AdmissionregistrationV1Api]:
    api_client = k8s_config.new_client_from_config_dict(sandbox.kubeconfig())
    try:
        yield k8s.AdmissionregistrationV1Api(api_client)
    finally:
        api_client.close()
