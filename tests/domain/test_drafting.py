"""Pure draft rules: field paths to YAML lines, caBundle carry-over, risk delta."""

from webhooks_ui.domain.coverage import webhook_coverage
from webhooks_ui.domain.discovery import ApiResource
from webhooks_ui.domain.drafting import (
    carry_ca_bundles,
    clone_object,
    coverage_delta,
    field_lines,
    line_for,
    risk_delta,
)
from webhooks_ui.domain.risk import Finding

TEXT = """\
metadata:
  name: a
  labels:
    example.com/team: x
webhooks:
- name: w
  rules:
  - operations: [CREATE, Bad]
"""


def test_field_paths_map_to_lines():
    lines = field_lines(TEXT)
    assert line_for(lines, "webhooks[0].rules[0].operations[1]") == 8
    assert line_for(lines, "metadata.labels[example.com/team]") == 4
    # A missing field is reported where its nearest parent is.
    assert line_for(lines, "webhooks[0].sideEffects") == 6
    assert line_for(lines, "nowhere") is None
    assert field_lines("a: [") == {}


def _hook(name, ca=None):
    client_config = {"url": "https://x"}
    if ca:
        client_config["caBundle"] = ca
    return {"name": name, "clientConfig": client_config}


def test_carry_ca_bundles_only_where_left_out():
    base = {"webhooks": [_hook("a", "QUJD"), _hook("b", "REVG")]}
    proposed = {"webhooks": [_hook("a"), _hook("b", "WFla"), _hook("c")]}
    result, carried = carry_ca_bundles(proposed, base)
    assert carried == ["a"]
    assert [h["clientConfig"].get("caBundle") for h in result["webhooks"]] == [
        "QUJD",
        "WFla",
        None,
    ]
    assert "caBundle" not in proposed["webhooks"][0]["clientConfig"]


def test_clone_drops_server_fields_owner_references_and_injected_ca():
    obj = {
        "metadata": {"name": "a", "uid": "u", "ownerReferences": [{"uid": "x"}]},
        "webhooks": [_hook("a", "QUJD")],
    }
    clone = clone_object(obj, name="b", drop_ca_bundles=True)
    assert clone["metadata"] == {"name": "b"}
    assert "caBundle" not in clone["webhooks"][0]["clientConfig"]


def _finding(check, field):
    return Finding(check, "warning", "K/a", None, field, "m", "f")


def test_risk_delta_by_check_and_field():
    before = [_finding("a", "x"), _finding("b", "y")]
    after = [_finding("b", "y"), _finding("c", "z")]
    added, removed = risk_delta(before, after)
    assert [f.check_id for f in added] == ["c"]
    assert [f.check_id for f in removed] == ["a"]


def test_coverage_delta_by_webhook_resource_and_namespace():
    rows = [
        ApiResource("", "v1", "pods", "", "Pod", True, ("create",), True),
        ApiResource(
            "apps", "v1", "deployments", "", "Deployment", True, ("create",), True
        ),
    ]
    namespaces = [{"name": "a", "labels": {}}, {"name": "b", "labels": {"x": "1"}}]

    def hook(resources, selector=None):
        rule = {
            "apiGroups": ["", "apps"],
            "apiVersions": ["v1"],
            "operations": ["CREATE"],
            "resources": resources,
        }
        body = {"name": "w", "rules": [rule], "clientConfig": {"url": "https://x"}}
        if selector:
            body["namespaceSelector"] = selector
        return webhook_coverage(body, resources=rows, namespaces=namespaces)

    before = [hook(["pods"])]
    after = [hook(["deployments"], {"matchLabels": {"x": "1"}})]
    [change] = coverage_delta(before, after)
    assert change.gained == (("deployments (apps/v1)", ("CREATE",)),)
    assert change.lost == (("pods (core/v1)", ("CREATE",)),)
    assert change.namespaces_lost == ("a",)
    assert coverage_delta(before, before) == []
