"""Every page requires sign-in; the sign-in page itself renders."""

import pytest


@pytest.mark.django_db
def test_overview_redirects_anonymous_to_sign_in(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


@pytest.mark.django_db
def test_sign_in_page_renders_with_csrf(client):
    response = client.get("/login/")
    assert response.status_code == 200
    assert b"csrfmiddlewaretoken" in response.content
