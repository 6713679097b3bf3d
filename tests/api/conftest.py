"""API fixtures: the view tests' synced sandboxes and users, API clients, tokens."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.views import conftest as view_fixtures
from webhooks_ui.models import SyncRun
from webhooks_ui.services.risk import findings_refresh_after
from webhooks_ui.services.tokens import api_token_create

# The UI tests' synced sandboxes and users, shared rather than copied.
sandboxes = view_fixtures.sandboxes
clusters = view_fixtures.clusters
admin_user = view_fixtures.admin_user
role_user = view_fixtures.role_user
nobody = view_fixtures.nobody


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def as_user(api):
    """An API client authenticated as ``user`` by a Bearer token."""

    def make(user) -> APIClient:
        secret = api_token_create(user=user, name="tests").secret
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return api

    return make


@pytest.fixture
def admin_api(as_user, admin_user, clusters) -> APIClient:
    return as_user(admin_user)


@pytest.fixture
def findings(clusters):
    findings_refresh_after(runs=SyncRun.objects.all())


def error_of(response) -> dict:
    """The one error shape; fails the test if the body has any other."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    return body["error"]
