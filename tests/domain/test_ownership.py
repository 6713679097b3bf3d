"""ownership: who else writes a webhook configuration, from labels and managedFields."""

import json

from webhooks_ui.domain.ownership import (
    Owner,
    ca_bundle_injected,
    ca_bundle_managers,
    detect_owners,
)


def make_config(*, labels=None, annotations=None, managed_fields=None, **metadata):
    meta = {"name": "cfg", **metadata}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    if managed_fields is not None:
        meta["managedFields"] = managed_fields
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": meta,
        "webhooks": [],
    }


def webhook_fields(name, *fields):
    """FieldsV1 owning ``fields`` (dotted, under the webhook named ``name``)."""
    item = {}
    for field in fields:
        node = item
        for part in field.split("."):
            node = node.setdefault(f"f:{part}", {})
    # List items of a map-list are keyed by their merge key: k:{"name":"..."}.
    key = "k:" + json.dumps({"name": name}, separators=(",", ":"))
    return {"f:webhooks": {key: item}}


def entry(manager, fields_v1, operation="Update"):
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": "admissionregistration.k8s.io/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields_v1,
    }


def kinds(owners):
    return [(owner.kind, owner.name) for owner in owners]


def test_nothing_to_detect():
    assert detect_owners(make_config()) == []
    assert detect_owners({}) == []
    assert not ca_bundle_injected(make_config())
    assert not ca_bundle_injected(None)


def test_helm_release():
    obj = make_config(
        labels={"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "x-1.0"},
        annotations={
            "meta.helm.sh/release-name": "x",
            "meta.helm.sh/release-namespace": "tools",
        },
    )
    (owner,) = detect_owners(obj)
    assert owner == Owner(
        kind="helm",
        name="tools/x",
        detail=owner.detail,
        evidence=(
            'metadata.labels["app.kubernetes.io/managed-by"]=Helm',
            'metadata.annotations["meta.helm.sh/release-name"]=x',
            'metadata.annotations["meta.helm.sh/release-namespace"]=tools',
            'metadata.labels["helm.sh/chart"]=x-1.0',
        ),
        reverts_edits=False,
        owns_ca_bundle=False,
    )


def test_argocd_label_and_tracking_id():
    by_label = make_config(labels={"argocd.argoproj.io/instance": "hooks"})
    assert kinds(detect_owners(by_label)) == [("argocd", "hooks")]
    by_annotation = make_config(
        annotations={
            "argocd.argoproj.io/tracking-id": (
                "hooks-app:admissionregistration.k8s.io/"
                "ValidatingWebhookConfiguration:/cfg"
            )
        }
    )
    (owner,) = detect_owners(by_annotation)
    assert (owner.kind, owner.name, owner.reverts_edits) == (
        "argocd",
        "hooks-app",
        True,
    )


def test_flux_kustomization_and_helm_release():
    obj = make_config(
        labels={
            "kustomize.toolkit.fluxcd.io/name": "infra",
            "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
            "helm.toolkit.fluxcd.io/name": "hooks",
            "helm.toolkit.fluxcd.io/namespace": "tools",
        }
    )
    owners = detect_owners(obj)
    assert kinds(owners) == [("flux", "flux-system/infra"), ("flux", "tools/hooks")]
    assert all(owner.reverts_edits for owner in owners)


def test_kustomize_and_other_managed_by_values():
    kustomize = make_config(labels={"app.kubernetes.io/managed-by": "kustomize"})
    assert kinds(detect_owners(kustomize)) == [("kustomize", "")]
    other = make_config(labels={"app.kubernetes.io/managed-by": "pulumi"})
    assert kinds(detect_owners(other)) == [("managed-by-label", "pulumi")]


def test_olm():
    obj = make_config(
        labels={
            "olm.owner": "op.v1",
            "olm.owner.namespace": "ops",
            "olm.managed": "true",
        }
    )
    (owner,) = detect_owners(obj)
    assert (owner.kind, owner.name) == ("operator-lifecycle-manager", "ops/op.v1")
    assert owner.reverts_edits and owner.owns_ca_bundle


def test_cert_manager_annotations():
    for key, value in (
        ("cert-manager.io/inject-ca-from", "ns/cert"),
        ("cert-manager.io/inject-ca-from-secret", "ns/secret"),
        ("cert-manager.io/inject-apiserver-ca", "true"),
    ):
        obj = make_config(annotations={key: value})
        (owner,) = detect_owners(obj)
        assert (owner.kind, owner.name, owner.owns_ca_bundle) == (
            "ca-injector",
            "cert-manager",
            True,
        )
        assert owner.evidence == (f'metadata.annotations["{key}"]={value}',)
        assert ca_bundle_injected(obj)
    off = make_config(annotations={"cert-manager.io/inject-apiserver-ca": "false"})
    assert not ca_bundle_injected(off)


def test_openshift_service_ca():
    obj = make_config(annotations={"service.beta.openshift.io/inject-cabundle": "true"})
    assert kinds(detect_owners(obj)) == [("ca-injector", "openshift-service-ca")]
    assert ca_bundle_injected(obj)


def test_self_managing_projects():
    kyverno = make_config(labels={"webhook.kyverno.io/managed-by": "kyverno"})
    (owner,) = detect_owners(kyverno)
    assert (owner.kind, owner.name) == ("controller", "kyverno")
    assert owner.reverts_edits and owner.owns_ca_bundle
    gatekeeper = make_config(labels={"gatekeeper.sh/system": "yes"})
    assert kinds(detect_owners(gatekeeper)) == [("ca-injector", "gatekeeper")]
    istio = make_config(labels={"istio.io/rev": "default"})
    (owner,) = detect_owners(istio)
    assert (owner.name, owner.owns_ca_bundle, owner.reverts_edits) == (
        "istiod",
        True,
        True,  # validating: istiod also flips failurePolicy
    )
    knative = make_config()
    knative["metadata"]["name"] = "validation.webhook.serving.knative.dev"
    assert kinds(detect_owners(knative)) == [("controller", "knative.dev/pkg webhook")]


def test_owner_references():
    obj = make_config(
        ownerReferences=[{"kind": "Deployment", "name": "hook", "controller": True}]
    )
    (owner,) = detect_owners(obj)
    assert (owner.kind, owner.name, owner.reverts_edits) == (
        "owner-reference",
        "Deployment/hook",
        True,
    )
    assert owner.evidence == ("metadata.ownerReferences[0]",)


def test_controller_owning_webhook_fields():
    obj = make_config(
        managed_fields=[
            entry("kubectl-client-side-apply", webhook_fields("a.x.io", "rules")),
            entry(
                "my-operator",
                webhook_fields("a.x.io", "rules", "clientConfig.caBundle"),
            ),
        ]
    )
    (owner,) = detect_owners(obj)
    assert (owner.kind, owner.name) == ("controller", "my-operator")
    assert owner.reverts_edits and owner.owns_ca_bundle
    assert owner.evidence == ("metadata.managedFields[1] (manager 'my-operator')",)


def test_manager_owning_only_ca_bundle_is_an_injector():
    update = entry("cabundle-sync", webhook_fields("a.x.io", "clientConfig.caBundle"))
    # Server-side apply also lists the item itself and its merge key.
    applied = webhook_fields("a.x.io", "clientConfig.caBundle", "name")
    key = next(iter(applied["f:webhooks"]))
    applied["f:webhooks"][key]["."] = {}
    apply = entry("other-sync", applied, operation="Apply")
    obj = make_config(managed_fields=[update, apply])
    owners = detect_owners(obj)
    assert kinds(owners) == [
        ("ca-injector", "cabundle-sync"),
        ("ca-injector", "other-sync"),
    ]
    assert all(o.owns_ca_bundle and not o.reverts_edits for o in owners)
    assert ca_bundle_managers(obj) == ["cabundle-sync", "other-sync"]


def test_metadata_only_managers_and_people_are_not_owners():
    obj = make_config(
        managed_fields=[
            entry("labeller", {"f:metadata": {"f:labels": {"f:x": {}}}}),
            entry("kubectl-edit", webhook_fields("a.x.io", "timeoutSeconds")),
            entry("dashboard", webhook_fields("a.x.io", "timeoutSeconds")),
        ]
    )
    assert kinds(detect_owners(obj, interactive_managers={"dashboard"})) == []
    assert kinds(detect_owners(obj)) == [("controller", "dashboard")]


def test_known_managers_merge_into_label_owners():
    obj = make_config(
        annotations={"cert-manager.io/inject-ca-from": "ns/cert"},
        labels={"app.kubernetes.io/managed-by": "Helm"},
        managed_fields=[
            entry("helm", webhook_fields("a.x.io", "rules")),
            entry(
                "cert-manager-cainjector",
                webhook_fields("a.x.io", "clientConfig.caBundle"),
            ),
        ],
    )
    owners = detect_owners(obj)
    assert kinds(owners) == [("helm", ""), ("ca-injector", "cert-manager")]
    assert owners[0].evidence[-1] == "metadata.managedFields[0] (manager 'helm')"
    assert owners[1].evidence[-1] == (
        "metadata.managedFields[1] (manager 'cert-manager-cainjector')"
    )


def test_fields_v1_as_json_text_and_garbage():
    text = json.dumps(webhook_fields("a.x.io", "clientConfig.caBundle"))
    obj = make_config(
        managed_fields=[entry("injector", text), entry("broken", "{not json"), "junk"]
    )
    assert kinds(detect_owners(obj)) == [("ca-injector", "injector")]
