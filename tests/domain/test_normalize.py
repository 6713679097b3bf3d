"""normalize: defaults in, server bookkeeping out, one fingerprint per configuration."""

import copy

from tests.domain.minimal import make_config, make_webhook
from webhooks_ui.domain.normalize import (
    SERVER_MANAGED_METADATA,
    fingerprint,
    normalize,
    strip_server_fields,
)

SERVER_METADATA = {
    "uid": "0b6f4b1e-0000-4000-8000-000000000000",
    "resourceVersion": "12345",
    "generation": 3,
    "creationTimestamp": "2025-01-01T00:00:00Z",
    "selfLink": "/apis/admissionregistration.k8s.io/v1/x",
    "deletionTimestamp": "2025-01-02T00:00:00Z",
    "deletionGracePeriodSeconds": 0,
    "namespace": "ignored-for-cluster-scoped",
    "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
}


def test_strip_server_fields_removes_bookkeeping_and_status_only():
    obj = make_config(**SERVER_METADATA, ownerReferences=[{"kind": "X", "name": "y"}])
    obj["status"] = {"anything": True}
    original = copy.deepcopy(obj)

    stripped = strip_server_fields(obj)

    assert obj == original  # input untouched
    assert "status" not in stripped
    assert set(SERVER_METADATA) <= set(SERVER_MANAGED_METADATA)
    assert stripped["metadata"] == {
        "name": "cfg",
        "ownerReferences": [{"kind": "X", "name": "y"}],
    }
    # No defaults: that is normalize's job.
    assert "failurePolicy" not in stripped["webhooks"][0]


def test_normalize_applies_v1_defaults():
    normalized = normalize(make_config(kind="MutatingWebhookConfiguration"))
    webhook = normalized["webhooks"][0]
    assert webhook["failurePolicy"] == "Fail"
    assert webhook["matchPolicy"] == "Equivalent"
    assert webhook["timeoutSeconds"] == 10
    assert webhook["namespaceSelector"] == {}
    assert webhook["objectSelector"] == {}
    assert webhook["reinvocationPolicy"] == "Never"
    assert webhook["rules"][0]["scope"] == "*"
    assert webhook["clientConfig"]["service"]["port"] == 443


def test_normalize_equates_null_empty_omitempty_and_absent():
    plain = make_config()
    noisy = make_config(
        make_webhook(
            matchConditions=[],
            failurePolicy=None,
            clientConfig={
                "service": {"namespace": "ns", "name": "svc", "port": None},
                "caBundle": "",
            },
        ),
        labels={},
        annotations=None,
    )
    assert normalize(noisy) == normalize(plain)


def test_normalize_keeps_label_values_that_look_like_empty_fields():
    obj = make_config(labels={"values": "", "caBundle": ""})
    assert normalize(obj)["metadata"]["labels"] == {"values": "", "caBundle": ""}


def test_normalize_keeps_explicit_values_the_server_keeps():
    obj = make_config(
        make_webhook(
            clientConfig={"service": {"namespace": "ns", "name": "svc", "path": ""}},
            timeoutSeconds=0,
        )
    )
    webhook = normalize(obj)["webhooks"][0]
    assert webhook["clientConfig"]["service"]["path"] == ""
    assert webhook["timeoutSeconds"] == 0


def test_normalize_drops_last_applied_annotation():
    obj = make_config(
        annotations={
            "kubectl.kubernetes.io/last-applied-configuration": "{...}",
            "team": "platform",
        }
    )
    assert normalize(obj)["metadata"]["annotations"] == {"team": "platform"}


def test_ca_bundle_kept_unless_asked_or_injected():
    webhook = make_webhook(
        clientConfig={"service": {"namespace": "ns", "name": "svc"}, "caBundle": "Zm9v"}
    )
    plain = make_config(webhook)
    assert normalize(plain)["webhooks"][0]["clientConfig"]["caBundle"] == "Zm9v"

    ignored = normalize(plain, ignore_injected_ca_bundle=True)
    assert "caBundle" not in ignored["webhooks"][0]["clientConfig"]

    injected = make_config(
        webhook, annotations={"cert-manager.io/inject-ca-from": "ns/cert"}
    )
    assert "caBundle" not in normalize(injected)["webhooks"][0]["clientConfig"]


def test_normalize_is_idempotent_and_pure():
    obj = make_config(**SERVER_METADATA)
    original = copy.deepcopy(obj)
    once = normalize(obj)
    assert normalize(once) == once
    assert obj == original


def test_fingerprint_ignores_key_order_server_fields_and_defaults():
    base = make_config()
    reordered = {key: base[key] for key in reversed(list(base))}
    with_server = make_config(**SERVER_METADATA)
    defaulted = make_config(make_webhook(failurePolicy="Fail", timeoutSeconds=10))
    fingerprints = {
        fingerprint(obj) for obj in (base, reordered, with_server, defaulted)
    }
    assert len(fingerprints) == 1
    (value,) = fingerprints
    assert len(value) == 64 and int(value, 16) >= 0


def test_fingerprint_changes_with_meaningful_differences():
    base = fingerprint(make_config())
    assert fingerprint(make_config(make_webhook(timeoutSeconds=30))) != base
    two = make_config(make_webhook("a.example.com"), make_webhook("b.example.com"))
    swapped = make_config(make_webhook("b.example.com"), make_webhook("a.example.com"))
    # Webhook order is part of the configuration (mutating webhooks run in order).
    assert fingerprint(two) != fingerprint(swapped)


def test_fingerprint_ignores_injected_ca_bundle_across_clusters():
    def on_cluster(bundle):
        webhook = make_webhook(
            clientConfig={
                "service": {"namespace": "ns", "name": "svc"},
                "caBundle": bundle,
            }
        )
        return make_config(
            webhook, annotations={"cert-manager.io/inject-ca-from": "ns/cert"}
        )

    assert fingerprint(on_cluster("QUFB")) == fingerprint(on_cluster("QkJC"))
