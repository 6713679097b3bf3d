"""The OpenAPI schema: valid, served, documented; the property-based run
against the live API is in test_schema_property.py."""

from __future__ import annotations

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from tests.api.conftest import error_of


def schema_document() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_schema_is_valid_openapi_without_credentials():
    schema = schema_document()
    validate_schema(schema)
    text = str(schema)
    assert "credentials" not in text
    assert "token_hash" not in text
    assert "/api/v1/clusters/{cluster}/sync/" in schema["paths"]
    assert "/api/schema/" not in schema["paths"]
    operation_ids = [
        op["operationId"] for item in schema["paths"].values() for op in item.values()
    ]
    assert len(operation_ids) == len(set(operation_ids))


def test_schema_endpoint_needs_sign_in(admin_api):
    anonymous = APIClient().get("/api/schema/?format=json")
    assert anonymous.status_code == 401
    assert error_of(anonymous)["code"] == "not_authenticated"
    response = admin_api.get("/api/schema/?format=json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.")


def test_docs_page_lists_every_operation_without_scripts(client, admin_user):
    assert client.get("/api/docs/").status_code == 302
    client.force_login(admin_user)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    for path in schema_document()["paths"]:
        assert path in html
    body = html.split("</head>", 1)[1]
    assert "<script" not in body and "cdn" not in html.lower()


def test_generating_the_schema_leaves_the_filters_working(admin_api, findings):
    schema_document()  # reads the FilterSets' fields from their classes
    assert admin_api.get("/api/v1/configurations/?cluster=beta").status_code == 200
    assert admin_api.get("/api/v1/findings/?environment=staging").status_code == 200
