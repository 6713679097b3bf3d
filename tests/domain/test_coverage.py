"""Discovery parsing, equivalence, coverage and who-intercepts on hand-written data."""

from __future__ import annotations

from typing import Any

import pytest

from tests.domain.webhook_factory import admission_request
from webhooks_ui.domain.coverage import (
    prepare_configurations,
    webhook_coverage,
    who_intercepts,
)
from webhooks_ui.domain.discovery import (
    ApiResource,
    ResourceTable,
    equivalent_resources,
    parse_discovery,
    resources_from_resource_list,
    resources_from_rows,
)

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update"]
STATUS_VERBS = ["get", "patch", "update"]


def _row(group, version, name, kind, namespaced, verbs=ALL_VERBS, **extra) -> dict:
    resource, _, subresource = name.partition("/")
    row = {
        "group": group,
        "version": version,
        "resource": resource,
        "subresource": subresource,
        "kind": kind,
        "namespaced": namespaced,
        "verbs": list(verbs),
    }
    row.update(extra)
    return row


ROWS = [
    _row("", "v1", "pods", "Pod", True),
    _row("", "v1", "pods/status", "Pod", True, STATUS_VERBS),
    _row("", "v1", "pods/exec", "PodExecOptions", True, ["create", "get"]),
    _row("", "v1", "pods/log", "Pod", True, ["get"]),
    _row("", "v1", "pods/eviction", "Eviction", True, ["create"], kindGroup="policy"),
    _row("", "v1", "namespaces", "Namespace", False),
    _row("", "v1", "namespaces/finalize", "Namespace", False, ["update"]),
    _row("", "v1", "namespaces/status", "Namespace", False, STATUS_VERBS),
    _row("", "v1", "nodes", "Node", False),
    _row("", "v1", "nodes/proxy", "NodeProxyOptions", False, ["get", "create"]),
    _row("", "v1", "events", "Event", True),
    _row("events.k8s.io", "v1", "events", "Event", True),
    _row("apps", "v1", "deployments", "Deployment", True, preferred=True),
    _row(
        "apps",
        "v1",
        "deployments/scale",
        "Scale",
        True,
        STATUS_VERBS,
        preferred=True,
        kindGroup="autoscaling",
        kindVersion="v1",
    ),
    _row("apps", "v1beta2", "deployments", "Deployment", True, preferred=False),
    _row("autoscaling", "v2", "horizontalpodautoscalers", "HPA", True, preferred=True),
    _row("autoscaling", "v1", "horizontalpodautoscalers", "HPA", True, preferred=False),
    _row(
        "admissionregistration.k8s.io",
        "v1",
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        False,
    ),
    _row(
        "authorization.k8s.io", "v1", "subjectaccessreviews", "SAR", False, ["create"]
    ),
    _row("example.com", "v1", "widgets", "Widget", True),
    _row("example.com", "v1", "widgets/status", "Widget", True, STATUS_VERBS),
    _row("example.com", "v1", "gadgets", "Gadget", False),
]
RESOURCES = resources_from_rows(ROWS)
TABLE = ResourceTable.build(RESOURCES)
NAMESPACES = [
    {"name": "default", "labels": {}},
    {"name": "kube-system", "labels": {"control-plane": "true"}},
    {"name": "team-a", "labels": {"inject": "enabled"}},
]


def _rule(resources, groups=("*",), versions=("*",), operations=("*",), scope="*"):
    return {
        "operations": list(operations),
        "apiGroups": list(groups),
        "apiVersions": list(versions),
        "resources": list(resources),
        "scope": scope,
    }


def _hook(*rules: dict, **fields: Any) -> dict:
    hook = {"name": "hook.example.com", "rules": list(rules)}
    hook.update(fields)
    return hook


def _covered(hook: dict) -> dict[str, tuple[str, ...]]:
    coverage = webhook_coverage(hook, resources=TABLE, namespaces=NAMESPACES)
    return {
        f"{r.group or 'core'}/{r.version}/{r.name}": r.operations
        for r in coverage.resources
    }


# --- discovery ------------------------------------------------------------------


def test_operations_from_verbs():
    ops = {r.name: r.operations for r in RESOURCES if r.group == ""}
    assert ops["pods"] == ("CREATE", "UPDATE", "DELETE")
    assert ops["pods/status"] == ("UPDATE",)
    assert ops["pods/exec"] == ("CONNECT",)
    assert ops["nodes/proxy"] == ("CONNECT",)
    assert ops["pods/log"] == ()
    assert ops["pods/eviction"] == ("CREATE",)


def test_subresources_inherit_the_parent_scope():
    rows = resources_from_rows(
        [
            _row("x.io", "v1", "things", "Thing", True),
            _row("x.io", "v1", "things/status", "Thing", False, STATUS_VERBS),
        ]
    )
    assert [r.namespaced for r in rows] == [True, True]


def test_resource_list_shape():
    rows = resources_from_resource_list(
        {
            "kind": "APIResourceList",
            "groupVersion": "apps/v1",
            "resources": [
                {
                    "name": "deployments",
                    "namespaced": True,
                    "kind": "Deployment",
                    "verbs": ALL_VERBS,
                },
                {
                    "name": "deployments/scale",
                    "namespaced": True,
                    "kind": "Scale",
                    "group": "autoscaling",
                    "version": "v1",
                    "verbs": STATUS_VERBS,
                },
            ],
        }
    )
    assert [(r.group, r.version, r.name) for r in rows] == [
        ("apps", "v1", "deployments"),
        ("apps", "v1", "deployments/scale"),
    ]
    assert rows[1].gvk == ("autoscaling", "v1", "Scale")
    assert rows[0].gvk == ("apps", "v1", "Deployment")
    core = parse_discovery(
        {
            "groupVersion": "v1",
            "resources": [
                {"name": "pods", "namespaced": True, "kind": "Pod", "verbs": ALL_VERBS}
            ],
        }
    )
    assert core[0].group == "" and core[0].version == "v1"


def test_rows_without_preferred_take_the_first_version_of_their_group():
    rows = resources_from_rows(
        [_row("g", "v2", "r", "R", True), _row("g", "v1", "r", "R", True)]
    )
    assert [r.preferred for r in rows] == [True, False]


def test_parse_discovery_rejects_other_shapes():
    with pytest.raises(ValueError):
        parse_discovery("nope")


def test_equivalents_same_group_preferred_first():
    assert equivalent_resources(TABLE, "apps", "v1beta2", "deployments") == [
        {
            "group": "apps",
            "version": "v1",
            "resource": "deployments",
            "subresource": "",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        }
    ]
    hpa = equivalent_resources(TABLE, "autoscaling", "v1", "horizontalpodautoscalers")
    assert [e["version"] for e in hpa] == ["v2"]


def test_equivalents_cross_group_events():
    assert [
        (e["group"], e["version"])
        for e in equivalent_resources(TABLE, "", "v1", "events")
    ] == [("events.k8s.io", "v1")]
    assert [
        (e["group"], e["version"])
        for e in equivalent_resources(TABLE, "events.k8s.io", "v1", "events")
    ] == [("", "v1")]


def test_equivalents_of_a_subresource_need_that_subresource():
    # apps/v1beta2 deployments has no scale row here: no equivalent for scale
    assert equivalent_resources(TABLE, "apps", "v1", "deployments", "scale") == []
    scale = equivalent_resources(TABLE, "apps", "v1beta2", "deployments", "scale")
    assert [(e["version"], e["subresource"]) for e in scale] == [("v1", "scale")]
    assert scale[0]["kind"] == {
        "group": "autoscaling",
        "version": "v1",
        "kind": "Scale",
    }


def test_no_equivalents_for_unrelated_resources():
    assert equivalent_resources(TABLE, "", "v1", "pods") == []


# --- coverage: rule expansion -------------------------------------------------------


@pytest.mark.parametrize(
    ("hook", "expected"),
    [
        (
            _hook(_rule(["pods"], groups=[""], operations=["CREATE"])),
            {"core/v1/pods": ("CREATE",)},
        ),
        (
            _hook(_rule(["pods/*"], groups=[""])),
            {
                "core/v1/pods": ("CREATE", "UPDATE", "DELETE"),
                "core/v1/pods/status": ("UPDATE",),
                "core/v1/pods/exec": ("CONNECT",),
                "core/v1/pods/eviction": ("CREATE",),
            },
        ),
        (
            _hook(_rule(["*/status"], groups=["", "example.com"])),
            {
                "core/v1/pods/status": ("UPDATE",),
                "core/v1/namespaces/status": ("UPDATE",),
                "example.com/v1/widgets/status": ("UPDATE",),
            },
        ),
        (
            _hook(_rule(["*/scale"])),
            {"apps/v1/deployments/scale": ("UPDATE",)},
        ),
        (
            _hook(_rule(["pods/exec"], operations=["CONNECT"])),
            {"core/v1/pods/exec": ("CONNECT",)},
        ),
        # an operation the resource never sees is not covered
        (_hook(_rule(["pods/exec"], operations=["CREATE"])), {}),
        (_hook(_rule(["namespaces/finalize"], operations=["DELETE"])), {}),
    ],
)
def test_wildcard_expansion(hook, expected):
    assert _covered(hook) == expected


def test_star_covers_resources_not_subresources_and_star_star_everything():
    star = _covered(_hook(_rule(["*"])))
    assert "core/v1/pods" in star and "core/v1/pods/status" not in star
    both = _covered(_hook(_rule(["*/*"])))
    assert "core/v1/pods/status" in both and "core/v1/pods/exec" in both
    # read-only rows are never covered
    assert "core/v1/pods/log" not in both


def test_exempt_and_virtual_resources_are_removed():
    coverage = webhook_coverage(
        _hook(_rule(["*"])), resources=TABLE, namespaces=NAMESPACES
    )
    names = {r.name for r in coverage.resources}
    exempt = {r.name for r in coverage.exempt}
    assert "validatingwebhookconfigurations" in exempt
    assert "subjectaccessreviews" in exempt
    assert not names & exempt
    kept = webhook_coverage(
        _hook(_rule(["*"])),
        resources=TABLE,
        namespaces=NAMESPACES,
        exclude_virtual_resources=False,
    )
    assert "subjectaccessreviews" in {r.name for r in kept.resources}


@pytest.mark.parametrize(
    ("scope", "present", "absent"),
    [
        (
            "Namespaced",
            ["core/v1/pods", "core/v1/pods/status"],
            [
                "core/v1/namespaces",
                "core/v1/nodes",
                "core/v1/namespaces/status",
                "example.com/v1/gadgets",
            ],
        ),
        (
            "Cluster",
            [
                "core/v1/namespaces",
                "core/v1/namespaces/finalize",
                "core/v1/nodes",
                "core/v1/nodes/proxy",
                "example.com/v1/gadgets",
            ],
            ["core/v1/pods", "core/v1/pods/status"],
        ),
        ("*", ["core/v1/pods", "core/v1/namespaces", "core/v1/nodes"], []),
    ],
)
def test_scope_filtering(scope, present, absent):
    covered = _covered(_hook(_rule(["*/*"], scope=scope)))
    for name in present:
        assert name in covered
    for name in absent:
        assert name not in covered


def test_equivalent_policy_covers_other_versions_and_groups():
    rule = _rule(
        ["deployments", "events"], groups=["apps", "events.k8s.io"], versions=["v1"]
    )
    equivalent = webhook_coverage(_hook(rule), resources=TABLE, namespaces=NAMESPACES)
    by_name = {(r.group, r.version, r.name): r for r in equivalent.resources}
    v1beta2 = by_name[("apps", "v1beta2", "deployments")]
    assert v1beta2.converted_to == ("apps", "v1", "deployments")
    assert v1beta2.equivalent_operations == ("CREATE", "UPDATE", "DELETE")
    core_events = by_name[("", "v1", "events")]
    assert core_events.converted_to == ("events.k8s.io", "v1", "events")
    direct = by_name[("apps", "v1", "deployments")]
    assert direct.converted_to is None and direct.equivalent_operations == ()
    exact = _covered(_hook(rule, matchPolicy="Exact"))
    assert set(exact) == {"apps/v1/deployments", "events.k8s.io/v1/events"}


def test_equivalents_keep_the_operation():
    rule = _rule(
        ["deployments"], groups=["apps"], versions=["v1"], operations=["DELETE"]
    )
    covered = _covered(_hook(rule))
    assert covered["apps/v1beta2/deployments"] == ("DELETE",)


def test_object_selector_removes_connect_and_narrows():
    hook = _hook(
        _rule(["pods/*"], groups=[""]),
        objectSelector={"matchLabels": {"inject": "enabled"}},
    )
    coverage = webhook_coverage(hook, resources=TABLE, namespaces=NAMESPACES)
    assert "pods/exec" not in {r.name for r in coverage.resources}
    assert coverage.object_selector_narrows
    assert any("CONNECT" in note for note in coverage.notes)


def test_namespace_selector_verdicts_and_cluster_scoped():
    hook = _hook(
        _rule(["*"]),
        namespaceSelector={
            "matchExpressions": [
                {"key": "control-plane", "operator": "NotIn", "values": ["true"]}
            ]
        },
        matchConditions=[{"name": "a", "expression": "true"}],
    )
    coverage = webhook_coverage(hook, resources=TABLE, namespaces=NAMESPACES)
    assert coverage.selected_namespaces == ("default", "team-a")
    [excluded] = coverage.excluded_namespaces
    assert excluded.name == "kube-system"
    assert excluded.reason == (
        "namespace kube-system has label control-plane=true, excluded by NotIn (true)"
    )
    assert coverage.covers_cluster_scoped
    assert {r.name for r in coverage.cluster_scoped} == {"nodes", "gadgets"}
    assert coverage.match_conditions_narrow
    assert not coverage.namespace_selector_empty
    assert any("Namespace objects" in note for note in coverage.notes)


def test_empty_namespace_selector_selects_all():
    coverage = webhook_coverage(
        _hook(_rule(["pods"])), resources=RESOURCES, namespaces=NAMESPACES
    )
    assert coverage.selected_namespaces == ("default", "kube-system", "team-a")
    assert coverage.excluded_namespaces == ()
    assert coverage.namespace_selector_empty
    assert not coverage.covers_cluster_scoped


def test_invalid_namespace_selector_excludes_everything_with_the_error():
    bad = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a b"]}]}
    coverage = webhook_coverage(
        _hook(_rule(["pods"]), namespaceSelector=bad),
        resources=TABLE,
        namespaces=NAMESPACES,
    )
    assert coverage.selected_namespaces == ()
    assert coverage.namespace_selector_error
    assert all("cannot be used" in v.reason for v in coverage.excluded_namespaces)


def test_no_rules_cover_nothing():
    coverage = webhook_coverage(_hook(), resources=TABLE, namespaces=[])
    assert coverage.resources == ()
    assert coverage.intercepted == ()


def test_intercepted_tuples():
    coverage = webhook_coverage(
        _hook(_rule(["pods"], groups=[""], operations=["CREATE"])),
        resources=TABLE,
        namespaces=[],
    )
    assert coverage.intercepted == (("", "v1", "pods", "", ("CREATE",)),)


# --- who intercepts ------------------------------------------------------------------


def _config(kind: str, name: str, *webhooks: dict) -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(webhooks),
    }


POD_CREATE = admission_request(object_labels={"app": "web"})
PODS = _rule(["pods"], groups=[""])
DEPLOYMENTS = _rule(["deployments"], groups=["apps"])

CONFIGURATIONS = [
    _config(
        "ValidatingWebhookConfiguration",
        "b-validating",
        _hook(PODS, name="v1.b.example.com", timeoutSeconds=5),
        _hook(DEPLOYMENTS, name="v2.b.example.com"),
    ),
    _config(
        "ValidatingWebhookConfiguration",
        "a-validating",
        _hook(PODS, name="v.a.example.com", timeoutSeconds=3, failurePolicy="Ignore"),
    ),
    _config(
        "MutatingWebhookConfiguration",
        "z-mutating",
        _hook(
            PODS,
            name="m.z.example.com",
            timeoutSeconds=2,
            reinvocationPolicy="IfNeeded",
        ),
    ),
    _config(
        "MutatingWebhookConfiguration",
        "c-mutating",
        _hook(
            PODS,
            name="m.c.example.com",
            timeoutSeconds=7,
            matchConditions=[
                {
                    "name": "not-alice",
                    "expression": "request.userInfo.username != 'alice'",
                }
            ],
        ),
    ),
]


def test_order_mutating_first_then_by_configuration_name():
    result = who_intercepts(CONFIGURATIONS, POD_CREATE)
    assert [(e.configuration_name, e.webhook_name) for e in result.webhooks] == [
        ("c-mutating", "m.c.example.com"),
        ("z-mutating", "m.z.example.com"),
        ("a-validating", "v.a.example.com"),
        ("b-validating", "v1.b.example.com"),
    ]
    [miss] = result.not_matching
    assert miss.webhook_name == "v2.b.example.com"
    assert miss.match.reason == "rules"
    assert result.webhooks[2].failure_policy == "Ignore"
    assert result.webhooks[1].reinvocation_policy == "IfNeeded"
    assert result.webhooks[2].reinvocation_policy is None


def test_worst_case_counts_reinvocation_twice():
    result = who_intercepts(CONFIGURATIONS, POD_CREATE)
    # 7 + 2*2 + 3 + 5; the conditions of m.c are not evaluated without a sample
    assert result.total_worst_case_seconds == 19
    assert "m.z.example.com" in result.worst_case_note
    assert result.webhooks[0].condition_decision == "not evaluated"
    assert result.webhooks[1].condition_decision == "call"


def test_match_conditions_with_a_sample():
    result = who_intercepts(
        CONFIGURATIONS,
        POD_CREATE,
        sample_object={"metadata": {"name": "web-1"}},
        user={"username": "alice"},
    )
    first = result.webhooks[0]
    assert first.condition_decision == "skip"
    assert first.conditions is not None
    assert [c.outcome for c in first.conditions.conditions] == ["false"]
    assert result.total_worst_case_seconds == 12
    assert "m.c.example.com" not in {e.webhook_name for e in result.called}
    bob = who_intercepts(
        CONFIGURATIONS,
        POD_CREATE,
        sample_object={"metadata": {"name": "web-1"}},
        user={"username": "bob"},
    )
    assert bob.webhooks[0].condition_decision == "call"


def test_missing_namespace_is_reported_as_rejecting():
    configurations = [
        _config(
            "ValidatingWebhookConfiguration",
            "v",
            _hook(
                PODS,
                name="v.example.com",
                namespaceSelector={"matchLabels": {"a": "b"}},
            ),
        )
    ]
    request = dict(POD_CREATE, namespace="gone", namespace_labels=None)
    result = who_intercepts(configurations, request)
    assert result.webhooks == ()
    assert [e.match.reason for e in result.rejected_by] == ["namespace-not-found"]


def test_prepared_configurations_and_equivalents_from_resources():
    prepared = prepare_configurations(
        [
            _config(
                "ValidatingWebhookConfiguration",
                "v",
                _hook(
                    _rule(["deployments"], groups=["apps"], versions=["v1"]),
                    name="d.example.com",
                ),
            )
        ]
    )
    request = dict(
        POD_CREATE,
        group="apps",
        version="v1beta2",
        resource="deployments",
        kind="Deployment",
    )
    assert who_intercepts(prepared, request).webhooks == ()
    result = who_intercepts(prepared, request, resources=TABLE)
    [entry] = result.webhooks
    assert entry.match.converted_to == ("apps", "v1", "deployments")


def test_prepare_rejects_other_kinds():
    with pytest.raises(ValueError):
        prepare_configurations([{"kind": "Pod"}])


def test_api_resource_names():
    row = ApiResource("", "v1", "pods", "exec", "PodExecOptions", True, ("create",))
    assert row.name == "pods/exec"
    assert row.operations == ("CONNECT",)
