"""risk.check_fleet: risky drift of one configuration between clusters."""

import copy

from tests.domain.webhook_factory import config, rule, webhook
from webhooks_ui.domain.risk import check_fleet


def base(**overrides):
    return config(webhook(**overrides), name="policy")


def fleet(**clusters):
    return check_fleet(clusters)


def test_identical_configurations_do_not_drift():
    obj = base()
    assert fleet(prod=("prod", [obj]), stage=("staging", [copy.deepcopy(obj)])) == []


def test_defaults_and_ca_bundles_are_not_drift():
    explicit = base(failurePolicy="Fail", timeoutSeconds=10)
    explicit["webhooks"][0]["clientConfig"]["caBundle"] = "abc="
    assert fleet(prod=("prod", [explicit]), stage=("staging", [base()])) == []


def test_fail_closed_in_prod_and_open_in_staging():
    [finding] = fleet(
        prod=("prod", [base(failurePolicy="Fail")]),
        stage=("staging", [base(failurePolicy="Ignore")]),
    )
    assert finding.check_id == "cross-cluster-risky-drift"
    assert finding.severity == "warning"
    assert finding.field == "webhooks[0].failurePolicy"
    assert "prod (prod)" in finding.message and "stage (staging)" in finding.message


def test_webhook_present_in_prod_only():
    extra = webhook(name="extra.example.com", failurePolicy="Ignore")
    prod = config(webhook(), extra, name="policy")
    [finding] = fleet(prod=("prod", [prod]), stage=("staging", [base()]))
    assert finding.webhook == "extra.example.com"
    assert finding.severity == "warning"
    assert "stage (staging)" in finding.message


def test_configuration_on_one_cluster_only_is_not_drift():
    other = config(webhook(), name="addon")
    assert fleet(prod=("prod", [base(), other]), stage=("staging", [base()])) == []


def test_timeouts_far_apart_are_info():
    [finding] = fleet(
        prod=("prod", [base(timeoutSeconds=30)]),
        stage=("staging", [base(timeoutSeconds=5)]),
    )
    assert (finding.severity, finding.field) == ("info", "webhooks[0].timeoutSeconds")


def test_close_timeouts_are_not_drift():
    assert (
        fleet(
            prod=("prod", [base(timeoutSeconds=12)]),
            stage=("staging", [base(timeoutSeconds=10)]),
        )
        == []
    )


def test_different_rules_or_selectors_are_info():
    narrow = base(namespaceSelector={"matchLabels": {"team": "a"}})
    wider = base(rules=[rule(operations=["CREATE", "UPDATE"])])
    findings = fleet(a=("prod", [base()]), b=("prod", [narrow]), c=("staging", [wider]))
    fields = sorted(f.field for f in findings)
    assert fields == ["webhooks[0].namespaceSelector", "webhooks[0].rules"]
    assert {f.severity for f in findings} == {"info"}


def test_webhooks_are_paired_by_name_not_position():
    first, second = webhook(name="a.example.com"), webhook(name="b.example.com")
    prod = config(first, second, name="policy")
    stage = config(copy.deepcopy(second), copy.deepcopy(first), name="policy")
    assert fleet(prod=("prod", [prod]), stage=("staging", [stage])) == []
