"""explain: every webhook field in plain English, defaults marked."""

import pytest

from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.explain import (
    UNRECOGNISED,
    FieldExplanation,
    describe_rule,
    describe_selector,
    explain_webhook,
    webhook_fields,
)

MUTATING = "MutatingWebhookConfiguration"
VALIDATING = "ValidatingWebhookConfiguration"


def make_webhook(**fields):
    webhook = {
        "name": "pods.example.com",
        "clientConfig": {"service": {"namespace": "hooks", "name": "svc"}},
        "rules": [
            {
                "operations": ["CREATE", "UPDATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    webhook.update(fields)
    return webhook


def by_path(explanations):
    return {item.path: item for item in explanations}


@pytest.mark.parametrize("kind", [MUTATING, VALIDATING])
def test_every_api_field_is_explained(kind):
    explained = by_path(explain_webhook(make_webhook(), kind=kind))
    for field in webhook_fields(kind):
        assert field in explained, field
    assert ("reinvocationPolicy" in explained) == (kind == MUTATING)
    for path in (
        "clientConfig.service",
        "clientConfig.service.namespace",
        "clientConfig.service.name",
        "clientConfig.service.port",
        "clientConfig.service.path",
        "clientConfig.caBundle",
        "rules[0]",
    ):
        assert path in explained, path
    assert all(isinstance(item, FieldExplanation) for item in explained.values())
    assert {item.severity for item in explained.values()} <= {
        "ok",
        "info",
        "warn",
        "danger",
    }


def test_defaults_are_marked_and_explicit_values_are_not():
    explained = by_path(explain_webhook(make_webhook(), kind=MUTATING))
    for path, value in (
        ("failurePolicy", "Fail"),
        ("matchPolicy", "Equivalent"),
        ("namespaceSelector", {}),
        ("objectSelector", {}),
        ("timeoutSeconds", 10),
        ("reinvocationPolicy", "Never"),
        ("clientConfig.service.port", 443),
    ):
        assert explained[path].is_default, path
        assert explained[path].value == value, path
    assert not explained["name"].is_default
    assert not explained["sideEffects"].is_default
    assert "default" in explained["rules[0]"].text  # scope defaulted inside rule

    explicit = make_webhook(failurePolicy="Ignore", timeoutSeconds=5)
    explained = by_path(explain_webhook(explicit, kind=MUTATING))
    assert not explained["failurePolicy"].is_default
    assert not explained["timeoutSeconds"].is_default


def test_a_stored_value_equal_to_its_default_is_shown_as_the_default():
    # The apiserver stores defaulted objects: what sync sees for an unset field
    # is the default value itself, and the page must still say "default".
    stored = apply_defaults(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": MUTATING,
            "webhooks": [make_webhook(timeoutSeconds=30)],
        }
    )["webhooks"][0]
    explained = by_path(explain_webhook(stored, kind=MUTATING))
    for path in ("failurePolicy", "matchPolicy", "reinvocationPolicy"):
        assert explained[path].is_default, path
    assert not explained["timeoutSeconds"].is_default
    assert not explained["sideEffects"].is_default


def test_failure_policy_wording():
    fail = by_path(explain_webhook(make_webhook(), kind=VALIDATING))["failurePolicy"]
    assert fail.text.startswith(
        "Fails closed: if this webhook is down, errors or is slower than 10 s, "
        "matching requests are rejected."
    )
    assert fail.severity == "warn"
    ignore = by_path(
        explain_webhook(
            make_webhook(failurePolicy="Ignore", timeoutSeconds=5), kind=VALIDATING
        )
    )["failurePolicy"]
    assert ignore.text == (
        "Fails open: if this webhook is down, errors or is slower than 5 s, "
        "requests are admitted without this webhook's check."
    )


def test_rule_and_selector_wording_in_context():
    webhook = make_webhook(
        namespaceSelector={
            "matchExpressions": [{"key": "control-plane", "operator": "DoesNotExist"}]
        }
    )
    explained = by_path(explain_webhook(webhook, kind=VALIDATING))
    assert explained["rules[0]"].text.startswith(
        "CREATE and UPDATE of pods (core/v1), any scope"
    )
    assert (
        "namespaces without label control-plane" in explained["namespaceSelector"].text
    )


def test_describe_rule_wildcards_and_scopes():
    rule = {
        "operations": ["*"],
        "apiGroups": ["*"],
        "apiVersions": ["*"],
        "resources": ["*/*"],
        "scope": "Namespaced",
    }
    assert describe_rule(rule) == (
        "any operation of all resources and all their subresources "
        "(any group, any version), namespace-scoped resources only"
    )
    rule = {
        "operations": ["CREATE", "UPDATE", "DELETE"],
        "apiGroups": ["apps", ""],
        "apiVersions": ["v1"],
        "resources": ["deployments/*", "*/scale", "*", "pods/status"],
        "scope": "Cluster",
    }
    assert describe_rule(rule) == (
        "CREATE, UPDATE and DELETE of deployments and all their subresources, "
        "the scale subresource of any resource, all resources (not their "
        "subresources) and pods/status (groups apps and core, version v1), "
        "cluster-scoped resources only (Namespace objects count as cluster-scoped)"
    )
    assert describe_rule({}).startswith("no operation of no resource")
    assert "unsupported scope ''" in describe_rule({"scope": ""})


def test_describe_selector_operators():
    assert describe_selector({}, noun="namespaces") == "all namespaces"
    assert describe_selector({"matchLabels": {}, "matchExpressions": []}) == (
        "all objects"
    )
    assert describe_selector(None) == "no objects (a null selector matches nothing)"
    selector = {
        "matchLabels": {"team": "a"},
        "matchExpressions": [
            {"key": "env", "operator": "In", "values": ["prod", "staging"]},
            {"key": "tier", "operator": "In", "values": ["web"]},
            {"key": "skip", "operator": "NotIn", "values": ["true"]},
            {"key": "x", "operator": "NotIn", "values": ["1", ""]},
            {"key": "opt-in", "operator": "Exists"},
            {"key": "control-plane", "operator": "DoesNotExist"},
            {"key": "k", "operator": "Equals", "values": ["v"]},
        ],
    }
    assert describe_selector(selector, noun="namespaces") == (
        "namespaces with label team=a and with label env in (prod, staging) "
        "and with label tier=web and where label skip is not true (or is "
        'absent) and where label x is none of (1, "") (or is absent) and with '
        "label opt-in (any value) and without label control-plane and with an "
        "unsupported test 'Equals' on label k"
    )


def test_object_selector_opt_out_is_a_warning():
    opt_out = make_webhook(
        objectSelector={
            "matchExpressions": [{"key": "skip", "operator": "NotIn", "values": ["y"]}]
        }
    )
    item = by_path(explain_webhook(opt_out, kind=VALIDATING))["objectSelector"]
    assert item.severity == "warn" and "skip the webhook" in item.text
    opt_in = make_webhook(objectSelector={"matchLabels": {"inject": "true"}})
    item = by_path(explain_webhook(opt_in, kind=VALIDATING))["objectSelector"]
    assert item.severity == "ok"
    assert item.text.startswith("Runs for objects with label inject=true.")


def test_match_conditions_absent_and_present():
    explained = by_path(explain_webhook(make_webhook(), kind=VALIDATING))
    assert explained["matchConditions"].text.startswith("None: every request")
    conditions = [
        {"name": "not-kube-system", "expression": "request.namespace != 'kube-system'"},
        {"name": "always", "expression": "true"},
    ]
    explained = by_path(
        explain_webhook(make_webhook(matchConditions=conditions), kind=VALIDATING)
    )
    assert explained["matchConditions[0]"].label == "Condition not-kube-system"
    assert explained["matchConditions[0]"].value == "request.namespace != 'kube-system'"
    assert "matchConditions[1]" in explained


def test_injected_ca_bundle_is_not_a_warning():
    explained = explain_webhook(
        make_webhook(), kind=VALIDATING, ca_injector="cert-manager"
    )
    item = by_path(explained)["clientConfig.caBundle"]
    assert item.severity == "info" and item.text.startswith(
        "Not set here: cert-manager"
    )


def test_url_client_config():
    external = make_webhook(clientConfig={"url": "https://hook.example.com/validate"})
    explained = by_path(explain_webhook(external, kind=VALIDATING))
    assert explained["clientConfig.url"].severity == "info"
    assert explained["clientConfig.caBundle"].severity == "info"
    assert "clientConfig.service" not in explained
    loopback = make_webhook(clientConfig={"url": "https://127.0.0.1:8443/"})
    item = by_path(explain_webhook(loopback, kind=VALIDATING))["clientConfig.url"]
    assert item.severity == "warn"
    plain = make_webhook(clientConfig={"url": "http://hook.example.com/"})
    item = by_path(explain_webhook(plain, kind=VALIDATING))["clientConfig.url"]
    assert item.severity == "danger"


def test_ca_bundle_present_and_absent_with_a_service():
    explained = by_path(explain_webhook(make_webhook(), kind=VALIDATING))
    assert explained["clientConfig.caBundle"].severity == "warn"
    with_bundle = make_webhook(
        clientConfig={
            "service": {"namespace": "hooks", "name": "svc", "path": "/v"},
            "caBundle": "Zm9v",
        }
    )
    explained = by_path(explain_webhook(with_bundle, kind=VALIDATING))
    assert explained["clientConfig.caBundle"].severity == "ok"
    assert "https://svc.hooks.svc:443/v" in explained["clientConfig.service"].text


def test_unknown_fields_are_listed():
    webhook = make_webhook(futureField=1, reinvocationPolicy="IfNeeded")
    webhook["clientConfig"]["experimental"] = True
    explained = by_path(explain_webhook(webhook, kind=VALIDATING))
    # reinvocationPolicy is not a ValidatingWebhook field.
    for path in ("futureField", "reinvocationPolicy", "clientConfig.experimental"):
        assert explained[path].text == UNRECOGNISED


def test_odd_values_are_explained_not_raised():
    odd = {
        "name": "",
        "clientConfig": {"service": "svc", "url": 5},
        "rules": ["not-a-rule", {"operations": "CREATE", "resources": None}],
        "failurePolicy": "",
        "matchPolicy": "exact",
        "namespaceSelector": ["x"],
        "objectSelector": {"matchExpressions": "nope"},
        "timeoutSeconds": "ten",
        "admissionReviewVersions": ["v2"],
        "matchConditions": [None, {"name": "x"}],
        "reinvocationPolicy": "",
    }
    explained = by_path(explain_webhook(odd, kind=MUTATING))
    for path in (
        "name",
        "clientConfig",
        "rules[0]",
        "failurePolicy",
        "matchPolicy",
        "namespaceSelector",
        "timeoutSeconds",
        "admissionReviewVersions",
        "matchConditions[0]",
        "reinvocationPolicy",
        "sideEffects",
    ):
        assert explained[path].severity == "danger", path
    assert explain_webhook({}, kind=VALIDATING)
    assert explain_webhook(None, kind=VALIDATING)


def test_side_effects_and_review_versions():
    item = by_path(
        explain_webhook(make_webhook(sideEffects="Unknown"), kind=VALIDATING)
    )["sideEffects"]
    assert item.severity == "warn" and "dry-run" in item.text
    item = by_path(
        explain_webhook(
            make_webhook(admissionReviewVersions=["v1beta1", "v1"]), kind=VALIDATING
        )
    )["admissionReviewVersions"]
    assert "AdmissionReview v1beta1" in item.text and item.severity == "info"


def test_path_prefix():
    explained = explain_webhook(
        make_webhook(), kind=VALIDATING, path_prefix="webhooks[2]"
    )
    assert explained[0].path == "webhooks[2].name"
    assert "webhooks[2].clientConfig.service.port" in by_path(explained)
