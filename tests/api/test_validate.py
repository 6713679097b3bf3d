"""Validate: the checking core's verdict, the apiserver's Status, a dry run."""

from __future__ import annotations

import json

import pytest

from tests import factories
from tests.api.conftest import error_of
from webhooks_ui.domain.manifest import dump_json, dump_yaml, dump_yaml_documents

URL = "/api/v1/validate/"


def _invalid() -> dict:
    obj = factories.configuration("broken")
    obj["webhooks"][0]["failurePolicy"] = "Sometimes"
    return obj


def _post(api, body: str, content_type: str, query: str = ""):
    return api.post(URL + query, body, content_type=content_type)


@pytest.mark.parametrize(
    ("content_type", "dump"),
    [("application/yaml", dump_yaml), ("application/json", dump_json)],
)
def test_one_valid_object(admin_api, content_type, dump):
    response = _post(admin_api, dump(factories.configuration("ok")), content_type)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["valid"] is True and body["cluster"] is None
    (result,) = body["results"]
    assert result["name"] == "ok" and result["valid"] is True
    assert result["status"] is None and result["dry_run"] is None


def test_invalid_object_gets_the_apiservers_status(admin_api):
    text = dump_yaml_documents([factories.configuration("ok"), _invalid()])
    body = _post(admin_api, text, "application/yaml").json()
    assert body["valid"] is False
    assert body["summary"]["checked"] == 2 and body["summary"]["invalid"] == 1
    bad = body["results"][1]
    assert bad["document"] == 2 and bad["line"] and bad["valid"] is False
    status = bad["status"]
    assert status["kind"] == "Status" and status["code"] == 422
    assert status["reason"] == "Invalid"
    (cause,) = status["details"]["causes"]
    assert cause["field"] == "webhooks[0].failurePolicy"
    assert cause["reason"] == "FieldValueNotSupported"
    qualified = "ValidatingWebhookConfiguration.admissionregistration.k8s.io"
    assert status["message"].startswith(f'{qualified} "broken" is invalid')


def test_risk_findings_are_warnings(admin_api):
    obj = factories.configuration("risky", service=("webhooks", "svc"))
    obj["webhooks"][0]["timeoutSeconds"] = 30
    result = _post(admin_api, dump_yaml(obj), "application/yaml").json()["results"][0]
    assert result["valid"] is True
    assert any(w["severity"] for w in result["warnings"]), result["warnings"]


def test_json_wrapper_and_lists_and_skipped_kinds(admin_api):
    manifest = dump_yaml(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [factories.configuration("a"), factories.namespace("ns")],
        }
    )
    response = admin_api.post(URL, {"manifest": manifest}, format="json")
    body = response.json()
    assert [r["name"] for r in body["results"]] == ["a"]
    assert body["results"][0]["item"] == 0
    assert body["skipped"][0]["kind"] == "Namespace"


@pytest.mark.parametrize(
    ("body", "content_type", "line"),
    [
        ("kind: [unclosed\nname: x\n", "application/yaml", 2),
        ('{"kind": "X",\n  "apiVersion" "v1"}', "application/json", 2),
        ("a: 1\na: 2\n", "text/plain", 2),
    ],
)
def test_malformed_input_is_400_with_line_and_column(
    admin_api, body, content_type, line
):
    response = _post(admin_api, body, content_type)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_manifest"
    assert error["details"]["line"] == line
    assert error["details"]["column"] is not None
    assert error["message"].startswith(f"manifest:{line}:")


def test_empty_and_wrong_wrappers_are_400(admin_api):
    assert _post(admin_api, "", "application/yaml").status_code == 400
    assert _post(admin_api, "# only a comment\n", "application/yaml").status_code == 400
    wrong = admin_api.post(URL, {"manifest": 7}, format="json")
    assert wrong.status_code == 400
    unsupported = _post(admin_api, "x", "application/xml")
    assert unsupported.status_code == 415
    assert error_of(unsupported)["code"] == "unsupported_media_type"


def test_dry_run_on_a_cluster(as_user, role_user):
    api = as_user(role_user("editor"))
    text = dump_yaml_documents(
        [factories.configuration("brand-new"), factories.configuration("drifting")]
    )
    response = _post(api, text, "application/yaml", "?cluster=alpha")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cluster"] == "alpha"
    new, existing = body["results"]
    assert new["dry_run"]["ok"] is True
    assert existing["dry_run"]["ok"] is False
    assert existing["dry_run"]["status"] == 409
    assert existing["dry_run"]["reason"] == "AlreadyExists"
    assert body["valid"] is False and body["summary"]["dry_run_failed"] == 1


def test_dry_run_persists_nothing(admin_api, sandboxes):
    obj = factories.configuration("dry-only")
    admin_api.post(URL + "?cluster=alpha", {"manifest": json.dumps(obj)}, format="json")
    again = admin_api.post(
        URL + "?cluster=alpha", {"manifest": json.dumps(obj)}, format="json"
    )
    assert again.json()["results"][0]["dry_run"]["ok"] is True


def test_dry_run_skips_locally_invalid_objects(admin_api):
    body = _post(admin_api, dump_yaml(_invalid()), "application/yaml", "?cluster=alpha")
    assert body.json()["results"][0]["dry_run"] is None


def test_dry_run_on_a_hidden_cluster_is_404(as_user, nobody, clusters):
    response = _post(as_user(nobody), "kind: x", "application/yaml", "?cluster=alpha")
    assert response.status_code == 404
