"""One error shape for every failure, and clusters never confirmed by a 403."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.conftest import error_of


def test_unknown_endpoints_answer_in_the_error_shape(admin_api):
    response = admin_api.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert error_of(response)["code"] == "not_found"


def test_unknown_endpoints_need_sign_in_first(api, clusters):
    assert api.get("/api/v1/no-such-thing/").status_code == 401


def test_wrong_method_is_405_in_the_error_shape(admin_api):
    response = admin_api.delete("/api/v1/clusters/alpha/")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"


def test_unknown_cluster_is_404_in_the_error_shape(admin_api):
    response = admin_api.get("/api/v1/clusters/nope/")
    assert response.status_code == 404
    error = error_of(response)
    assert error == {
        "code": "not_found",
        "message": "No such cluster.",
        "details": None,
    }


def test_validation_errors_carry_field_details(admin_api):
    error = error_of(admin_api.post("/api/v1/tokens/", {}, format="json"))
    assert error["code"] == "invalid"
    assert error["message"] == "name: This field is required."
    assert error["details"] == {"name": ["This field is required."]}


def test_session_posts_without_csrf_are_refused(admin_user, clusters):
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(admin_user)
    response = api.post("/api/v1/clusters/alpha/sync/")
    assert response.status_code == 403
    assert "CSRF" in error_of(response)["message"]


def test_no_credential_ever_leaves(admin_api):
    for url in ["/api/v1/clusters/", "/api/v1/clusters/alpha/"]:
        text = admin_api.get(url).content.decode()
        assert "credential" not in text
        assert 'kubeconfig"' not in text.replace('"auth_method":"kubeconfig"', "")


def test_form_encoded_bodies_are_refused_with_415(admin_api):
    """Bodies are JSON (the schema says so); a form post is not half-understood."""
    response = admin_api.post(
        "/api/v1/changes/",
        "cluster=alpha&action=update&kind=validating&name=shared-checks",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


def test_the_schema_offers_json_bodies_only_outside_validate(admin_api):
    schema = admin_api.get("/api/schema/?format=json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if not body or path == "/api/v1/validate/":
                continue
            assert list(body["content"]) == ["application/json"], (method, path)
