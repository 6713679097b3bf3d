"""API tokens: Bearer authentication, revocation, and only a hash in the database."""

from __future__ import annotations

import hashlib

import pytest

from tests.api.conftest import error_of
from webhooks_ui.models import ApiToken


def _bearer(api, secret: str):
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


@pytest.fixture
def signed_in(api, admin_user, clusters):
    api.force_login(admin_user)
    return api


def test_create_shows_the_secret_once_and_stores_only_its_hash(signed_in):
    response = signed_in.post("/api/v1/tokens/", {"name": "ci"}, format="json")
    assert response.status_code == 201
    body = response.json()
    secret = body["token"]
    assert secret.startswith("whd_") and len(secret) > 40
    assert body["prefix"] == secret[:12] and body["active"] is True
    stored = ApiToken.objects.get(pk=body["id"])
    assert stored.token_hash == hashlib.sha256(secret.encode()).hexdigest()
    row = ApiToken.objects.filter(pk=stored.pk).values().get()
    assert all(secret not in str(value) for value in row.values())
    listed = signed_in.get("/api/v1/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["ci"]
    assert "token" not in listed[0]


def test_a_valid_token_authenticates_and_notes_its_use(api, signed_in):
    secret = signed_in.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()[
        "token"
    ]
    signed_in.logout()
    response = _bearer(api, secret).get("/api/v1/clusters/")
    assert response.status_code == 200
    assert response.json()["count"] == 2
    assert ApiToken.objects.get().last_used is not None


@pytest.mark.parametrize(
    "header",
    ["Bearer whd_wrong", "Bearer not-even-ours", "Bearer", "Bearer a b"],
)
def test_a_wrong_token_is_401(api, clusters, header):
    api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get("/api/v1/clusters/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


def test_a_revoked_token_is_401(api, signed_in):
    created = signed_in.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    revoked = signed_in.delete(f"/api/v1/tokens/{created['id']}/")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    signed_in.logout()
    response = _bearer(api, created["token"]).get("/api/v1/clusters/")
    assert response.status_code == 401


def test_a_token_of_an_inactive_user_is_401(api, signed_in, admin_user):
    secret = signed_in.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()[
        "token"
    ]
    signed_in.logout()
    admin_user.is_active = False
    admin_user.save()
    assert _bearer(api, secret).get("/api/v1/clusters/").status_code == 401


def test_nobody_can_revoke_another_users_token(as_user, nobody, signed_in):
    created = signed_in.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    response = as_user(nobody).delete(f"/api/v1/tokens/{created['id']}/")
    assert response.status_code == 404
    assert ApiToken.objects.get(pk=created["id"]).revoked_at is None


def test_a_token_needs_a_name(signed_in):
    response = signed_in.post("/api/v1/tokens/", {"name": ""}, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and "name" in error["details"]


def test_the_tokens_page_creates_shows_once_and_revokes(client, admin_user):
    client.force_login(admin_user)
    page = client.get("/account/tokens/")
    assert page.status_code == 200 and b"No tokens yet" in page.content
    created = client.post("/account/tokens/", {"name": "laptop"})
    assert created.status_code == 200
    assert created["Cache-Control"] == "no-store"
    token = ApiToken.objects.get()
    html = created.content.decode()
    assert "data-token-secret" in html and token.prefix in html
    again = client.get("/account/tokens/").content.decode()
    assert "data-token-secret" not in again and "laptop" in again
    revoked = client.post(f"/account/tokens/{token.pk}/revoke/")
    assert revoked.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert b"<script" not in page.content.split(b"</head>")[1]


def test_the_tokens_page_needs_sign_in_and_is_in_the_navbar(client, admin_user):
    assert client.get("/account/tokens/").status_code == 302
    client.force_login(admin_user)
    assert b'href="/account/tokens/"' in client.get("/").content
