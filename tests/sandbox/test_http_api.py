"""The sandbox over real HTTPS: auth, discovery, CRUD and Status shapes."""

from __future__ import annotations

import http.client
import threading
import time

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from webhooks_ui.sandbox.server import SandboxServer

from .factories import ADMISSION, VWC, VWC_PATH, validating_configuration, webhook
from .raw_http import anonymous, call

STATUS_KEYS = {"kind", "apiVersion", "metadata", "status", "message", "reason", "code"}


def assert_status(body: dict, code: int, reason: str) -> None:
    assert set(body) >= STATUS_KEYS
    assert body["kind"] == "Status" and body["apiVersion"] == "v1"
    assert body["metadata"] == {} and body["status"] == "Failure"
    assert (body["code"], body["reason"]) == (code, reason)


# -- auth


def test_missing_or_wrong_token_is_401_status(sandbox: SandboxServer) -> None:
    for token in (anonymous(), "not-a-token"):
        answer = call(sandbox, "GET", VWC_PATH, token=token)
        assert answer.status == 401
        assert_status(answer.body, 401, "Unauthorized")
        assert answer.body["message"] == "Unauthorized"


def test_version_is_public(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "GET", "/version", token=anonymous())
    assert answer.status == 200
    assert answer.body["gitVersion"].startswith("v1.33.")


def test_readonly_token_reads_but_cannot_write(sandbox: SandboxServer) -> None:
    ro = sandbox.readonly_token
    assert call(sandbox, "GET", VWC_PATH, token=ro).status == 200
    answer = call(sandbox, "DELETE", f"{VWC_PATH}/alpha", token=ro)
    assert answer.status == 403
    assert_status(answer.body, 403, "Forbidden")
    assert answer.body["details"] == {
        "name": "alpha",
        "group": "admissionregistration.k8s.io",
        "kind": "validatingwebhookconfigurations",
    }
    assert (
        'cannot delete resource "validatingwebhookconfigurations"'
        in (answer.body["message"])
    )
    created = call(sandbox, "POST", VWC_PATH, validating_configuration("x"), token=ro)
    assert created.status == 403
    sandbox.store.get(ADMISSION, VWC, "alpha")  # still there


def test_tls_is_verified_with_the_sandbox_ca(sandbox: SandboxServer) -> None:
    import ssl
    import urllib.request

    with pytest.raises(urllib.error.URLError) as failure:
        urllib.request.urlopen(
            sandbox.url + "/version", context=ssl.create_default_context(), timeout=5
        )
    assert isinstance(failure.value.reason, ssl.SSLCertVerificationError)


# -- discovery


def test_discovery_documents(sandbox: SandboxServer) -> None:
    groups = call(sandbox, "GET", "/apis").body
    assert groups["kind"] == "APIGroupList"
    by_name = {g["name"]: g for g in groups["groups"]}
    assert by_name["autoscaling"]["preferredVersion"]["version"] == "v2"
    assert [v["version"] for v in by_name["autoscaling"]["versions"]] == ["v2", "v1"]
    assert "cert-manager.io" in by_name and "kyverno.io" in by_name

    core = call(sandbox, "GET", "/api/v1").body
    names = {r["name"]: r for r in core["resources"]}
    for sub in ("pods/exec", "pods/log", "pods/attach", "pods/status", "pods/eviction"):
        assert sub in names
    assert names["pods/eviction"]["group"] == "policy"
    assert names["namespaces"]["namespaced"] is False
    assert "namespaces/finalize" in names

    apps = call(sandbox, "GET", "/apis/apps/v1").body
    scale = next(r for r in apps["resources"] if r["name"] == "deployments/scale")
    assert (scale["group"], scale["version"], scale["kind"]) == (
        "autoscaling",
        "v1",
        "Scale",
    )
    admission = call(sandbox, "GET", "/apis/admissionregistration.k8s.io/v1").body
    vwc = next(
        r
        for r in admission["resources"]
        if r["name"] == "validatingwebhookconfigurations"
    )
    assert vwc["namespaced"] is False and "watch" in vwc["verbs"]
    assert call(sandbox, "GET", "/api").body["versions"] == ["v1"]


def test_aggregated_discovery_when_asked(sandbox: SandboxServer) -> None:
    accept = (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json"
    )
    answer = call(sandbox, "GET", "/apis", accept=accept)
    assert answer.headers["Content-Type"].startswith("application/json;g=apidiscovery")
    assert answer.body["kind"] == "APIGroupDiscoveryList"
    apps = next(i for i in answer.body["items"] if i["metadata"]["name"] == "apps")
    deployments = next(
        r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments"
    )
    assert deployments["scope"] == "Namespaced"
    assert {s["subresource"] for s in deployments["subresources"]} == {
        "scale",
        "status",
    }


def test_unknown_paths_are_404_status(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "GET", "/apis/nope.example.com/v1/things")
    assert answer.status == 404
    assert_status(answer.body, 404, "NotFound")


def test_unstored_resources_list_empty_and_refuse_writes(
    sandbox: SandboxServer,
) -> None:
    assert call(sandbox, "GET", "/api/v1/pods").body["items"] == []
    answer = call(sandbox, "POST", "/api/v1/namespaces/default/pods", {"kind": "Pod"})
    assert answer.status == 405
    assert_status(answer.body, 405, "MethodNotAllowed")


# -- CRUD with the official client


def test_crud_with_the_kubernetes_client(
    admission_api: k8s.AdmissionregistrationV1Api,
) -> None:
    listed = admission_api.list_validating_webhook_configuration()
    assert [i.metadata.name for i in listed.items] == ["alpha", "bravo", "charlie"]

    body = validating_configuration("delta")
    body["metadata"]["namespace"] = "ignored-for-cluster-scoped"
    created = admission_api.create_validating_webhook_configuration(body)
    assert created.metadata.uid and created.metadata.creation_timestamp
    assert created.metadata.generation == 1
    assert created.metadata.namespace is None
    assert created.webhooks[0].failure_policy == "Fail"  # defaulted when stored
    assert created.webhooks[0].timeout_seconds == 10

    got = admission_api.read_validating_webhook_configuration("delta")
    assert got.metadata.resource_version == created.metadata.resource_version

    with pytest.raises(ApiException) as exists:
        admission_api.create_validating_webhook_configuration(body)
    assert exists.value.status == 409

    admission_api.delete_validating_webhook_configuration("delta")
    with pytest.raises(ApiException) as missing:
        admission_api.read_validating_webhook_configuration("delta")
    assert missing.value.status == 404


def test_not_found_status_shape(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "GET", f"{VWC_PATH}/ghost")
    assert_status(answer.body, 404, "NotFound")
    assert answer.body["message"] == (
        'validatingwebhookconfigurations.admissionregistration.k8s.io "ghost" not found'
    )
    assert answer.body["details"] == {
        "name": "ghost",
        "group": "admissionregistration.k8s.io",
        "kind": "validatingwebhookconfigurations",
    }


def test_resource_versions_increase_cluster_wide(sandbox: SandboxServer) -> None:
    first = call(sandbox, "POST", VWC_PATH, validating_configuration("one")).body
    second = call(
        sandbox,
        "POST",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        validating_configuration("two") | {"kind": "MutatingWebhookConfiguration"},
    ).body
    assert int(second["metadata"]["resourceVersion"]) == (
        int(first["metadata"]["resourceVersion"]) + 1
    )
    assert second["webhooks"][0]["reinvocationPolicy"] == "Never"
    listed = call(sandbox, "GET", VWC_PATH).body
    assert (
        listed["metadata"]["resourceVersion"] == second["metadata"]["resourceVersion"]
    )


# -- list: pagination and selectors


def test_pagination_with_limit_two(sandbox: SandboxServer) -> None:
    first = call(sandbox, "GET", f"{VWC_PATH}?limit=2").body
    assert [i["metadata"]["name"] for i in first["items"]] == ["alpha", "bravo"]
    token = first["metadata"]["continue"]
    assert first["metadata"]["remainingItemCount"] == 1
    # A change after the first page does not show up in later pages.
    sandbox.store.create(validating_configuration("zulu"))
    second = call(sandbox, "GET", f"{VWC_PATH}?limit=2&continue={token}").body
    assert [i["metadata"]["name"] for i in second["items"]] == ["charlie"]
    assert "continue" not in second["metadata"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_garbage_continue_token_is_400(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "GET", f"{VWC_PATH}?limit=2&continue=%21%21%21")
    assert answer.status == 400
    assert_status(answer.body, 400, "BadRequest")


def test_pagination_with_the_client(
    admission_api: k8s.AdmissionregistrationV1Api,
) -> None:
    names, token = [], None
    while True:
        page = admission_api.list_validating_webhook_configuration(
            limit=2, _continue=token
        )
        names += [i.metadata.name for i in page.items]
        token = page.metadata._continue
        if not token:
            break
    assert names == ["alpha", "bravo", "charlie"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("tier=gold", ["alpha", "charlie"]),
        ("tier==gold,team=a", ["alpha"]),
        ("tier!=gold", ["bravo"]),
        ("team in (a,b)", ["alpha", "bravo"]),
        ("team notin (a)", ["bravo", "charlie"]),
        ("team", ["alpha", "bravo"]),
        ("!team", ["charlie"]),
    ],
)
def test_label_selectors(sandbox: SandboxServer, selector: str, expected: list) -> None:
    from urllib.parse import quote

    body = call(sandbox, "GET", f"{VWC_PATH}?labelSelector={quote(selector)}").body
    assert [i["metadata"]["name"] for i in body["items"]] == expected


def test_bad_label_selector_is_400(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "GET", f"{VWC_PATH}?labelSelector=a%20in%20b")
    assert answer.status == 400


def test_field_selector_on_name(sandbox: SandboxServer) -> None:
    body = call(sandbox, "GET", f"{VWC_PATH}?fieldSelector=metadata.name%3Dbravo").body
    assert [i["metadata"]["name"] for i in body["items"]] == ["bravo"]
    answer = call(sandbox, "GET", f"{VWC_PATH}?fieldSelector=spec.x%3D1")
    assert answer.status == 400


# -- writes: conflicts, preconditions, patches


def test_stale_put_is_409_with_apiserver_message(sandbox: SandboxServer) -> None:
    current = call(sandbox, "GET", f"{VWC_PATH}/alpha").body
    current["webhooks"][0]["timeoutSeconds"] = 5
    assert call(sandbox, "PUT", f"{VWC_PATH}/alpha", current).status == 200
    current["webhooks"][0]["timeoutSeconds"] = 6  # still the old resourceVersion
    answer = call(sandbox, "PUT", f"{VWC_PATH}/alpha", current)
    assert answer.status == 409
    assert_status(answer.body, 409, "Conflict")
    assert answer.body["message"] == (
        "Operation cannot be fulfilled on validatingwebhookconfigurations."
        'admissionregistration.k8s.io "alpha": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


def test_put_without_resource_version_is_unconditional(sandbox: SandboxServer) -> None:
    body = validating_configuration("alpha", webhooks=[webhook(timeoutSeconds=4)])
    answer = call(sandbox, "PUT", f"{VWC_PATH}/alpha", body)
    assert answer.status == 200
    assert answer.body["webhooks"][0]["timeoutSeconds"] == 4


def test_put_name_mismatch_and_missing_object(sandbox: SandboxServer) -> None:
    body = validating_configuration("bravo")
    assert call(sandbox, "PUT", f"{VWC_PATH}/alpha", body).status == 400
    ghost = validating_configuration("ghost")
    assert call(sandbox, "PUT", f"{VWC_PATH}/ghost", ghost).status == 404


def test_delete_preconditions(sandbox: SandboxServer) -> None:
    current = sandbox.store.get(ADMISSION, VWC, "alpha")
    stale = {"preconditions": {"resourceVersion": "1"}}
    answer = call(sandbox, "DELETE", f"{VWC_PATH}/alpha", stale)
    assert answer.status == 409
    assert_status(answer.body, 409, "Conflict")
    assert (
        "Precondition failed: ResourceVersion in precondition: 1"
        in (answer.body["message"])
    )
    wrong_uid = {"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}
    assert call(sandbox, "DELETE", f"{VWC_PATH}/alpha", wrong_uid).status == 409
    good = {
        "preconditions": {
            "uid": current["metadata"]["uid"],
            "resourceVersion": current["metadata"]["resourceVersion"],
        }
    }
    answer = call(sandbox, "DELETE", f"{VWC_PATH}/alpha", good)
    assert answer.status == 200
    assert answer.body["status"] == "Success"
    assert answer.body["details"]["uid"] == current["metadata"]["uid"]


def test_merge_patch(sandbox: SandboxServer) -> None:
    answer = call(
        sandbox,
        "PATCH",
        f"{VWC_PATH}/alpha",
        {"metadata": {"labels": {"tier": None, "new": "yes"}}},
        content_type="application/merge-patch+json",
    )
    assert answer.status == 200
    assert answer.body["metadata"]["labels"] == {"team": "a", "new": "yes"}
    assert answer.body["metadata"]["generation"] == 1  # webhooks untouched


def test_json_patch(sandbox: SandboxServer) -> None:
    operations = [
        {"op": "test", "path": "/webhooks/0/name", "value": "check.example.com"},
        {"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"},
        {"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}},
    ]
    answer = call(
        sandbox,
        "PATCH",
        f"{VWC_PATH}/alpha",
        operations,
        content_type="application/json-patch+json",
    )
    assert answer.status == 200
    assert answer.body["webhooks"][0]["failurePolicy"] == "Ignore"
    assert answer.body["metadata"]["generation"] == 2
    failing = [{"op": "test", "path": "/webhooks/0/name", "value": "other"}]
    answer = call(
        sandbox,
        "PATCH",
        f"{VWC_PATH}/alpha",
        failing,
        content_type="application/json-patch+json",
    )
    assert answer.status == 422


def test_strategic_merge_patch_merges_webhooks_by_name(sandbox: SandboxServer) -> None:
    sandbox.store.replace(
        validating_configuration(
            "alpha", webhooks=[webhook("one.example.com"), webhook("two.example.com")]
        )
    )
    answer = call(
        sandbox,
        "PATCH",
        f"{VWC_PATH}/alpha",
        {"webhooks": [{"name": "two.example.com", "timeoutSeconds": 3}]},
        content_type="application/strategic-merge-patch+json",
    )
    hooks = answer.body["webhooks"]
    assert [h["name"] for h in hooks] == ["one.example.com", "two.example.com"]
    assert [h["timeoutSeconds"] for h in hooks] == [10, 3]
    deleted = call(
        sandbox,
        "PATCH",
        f"{VWC_PATH}/alpha",
        {"webhooks": [{"name": "one.example.com", "$patch": "delete"}]},
        content_type="application/strategic-merge-patch+json",
    ).body
    assert [h["name"] for h in deleted["webhooks"]] == ["two.example.com"]


def test_patch_with_the_client_and_unsupported_media_type(
    sandbox: SandboxServer, admission_api: k8s.AdmissionregistrationV1Api
) -> None:
    patched = admission_api.patch_validating_webhook_configuration(
        "alpha", {"metadata": {"annotations": {"owner": "me"}}}
    )
    assert patched.metadata.annotations == {"owner": "me"}
    answer = call(sandbox, "PATCH", f"{VWC_PATH}/alpha", {}, content_type="text/plain")
    assert answer.status == 415


# -- generation (D-6) ------------------------------------------------------------------


def test_generation_bumps_only_when_webhooks_change(sandbox: SandboxServer) -> None:
    current = sandbox.store.get(ADMISSION, VWC, "alpha")
    current["metadata"]["labels"]["extra"] = "1"
    relabelled = sandbox.store.replace(current)
    assert relabelled["metadata"]["generation"] == 1
    # Writing a default explicitly is no change at all: the stored object is defaulted.
    relabelled["webhooks"][0]["failurePolicy"] = "Fail"
    same = sandbox.store.replace(relabelled)
    assert (
        same["metadata"]["resourceVersion"] == relabelled["metadata"]["resourceVersion"]
    )
    relabelled["webhooks"][0]["failurePolicy"] = "Ignore"
    changed = sandbox.store.replace(relabelled)
    assert changed["metadata"]["generation"] == 2


# -- dryRun


def test_dry_run_persists_nothing(sandbox: SandboxServer) -> None:
    rv_before = sandbox.store.resource_version
    created = call(
        sandbox, "POST", f"{VWC_PATH}?dryRun=All", validating_configuration("dry")
    )
    assert created.status == 201
    assert created.body["metadata"]["uid"]
    assert created.body["metadata"]["generation"] == 1
    assert created.body["webhooks"][0]["matchPolicy"] == "Equivalent"

    current = call(sandbox, "GET", f"{VWC_PATH}/alpha").body
    current["webhooks"][0]["timeoutSeconds"] = 29
    updated = call(sandbox, "PUT", f"{VWC_PATH}/alpha?dryRun=All", current)
    assert updated.status == 200
    assert updated.body["webhooks"][0]["timeoutSeconds"] == 29
    assert updated.body["metadata"]["generation"] == 2

    deleted = call(sandbox, "DELETE", f"{VWC_PATH}/bravo?dryRun=All")
    assert deleted.status == 200

    assert sandbox.store.resource_version == rv_before
    assert call(sandbox, "GET", f"{VWC_PATH}/dry").status == 404
    stored = sandbox.store.get(ADMISSION, VWC, "alpha")
    assert stored["webhooks"][0]["timeoutSeconds"] == 10
    sandbox.store.get(ADMISSION, VWC, "bravo")
    assert call(sandbox, "POST", f"{VWC_PATH}?dryRun=Some", {}).status == 400


def test_dry_run_with_the_client(
    sandbox: SandboxServer, admission_api: k8s.AdmissionregistrationV1Api
) -> None:
    admission_api.create_validating_webhook_configuration(
        validating_configuration("dry"), dry_run="All"
    )
    assert call(sandbox, "GET", f"{VWC_PATH}/dry").status == 404


# -- fieldValidation


def _with_unknown_fields() -> dict:
    body = validating_configuration("extra")
    body["spec"] = {"foo": 1}
    body["webhooks"][0]["timeout"] = 5
    return body


def test_field_validation_strict(sandbox: SandboxServer) -> None:
    answer = call(
        sandbox, "POST", f"{VWC_PATH}?fieldValidation=Strict", _with_unknown_fields()
    )
    assert answer.status == 400
    assert_status(answer.body, 400, "BadRequest")
    assert answer.body["message"] == (
        # In the order the decoder meets them, as Go's strict decoder reports.
        'strict decoding error: unknown field "webhooks[0].timeout", unknown field '
        '"spec"'
    )


def test_field_validation_strict_reports_duplicate_fields(
    sandbox: SandboxServer,
) -> None:
    raw = (
        b'{"apiVersion":"admissionregistration.k8s.io/v1",'
        b'"kind":"ValidatingWebhookConfiguration",'
        b'"metadata":{"name":"a","name":"b"}}'
    )
    answer = call(sandbox, "POST", f"{VWC_PATH}?fieldValidation=Strict", raw=raw)
    assert answer.status == 400
    assert 'duplicate field "metadata.name"' in answer.body["message"]


def test_field_validation_warn_and_ignore(sandbox: SandboxServer) -> None:
    warned = call(
        sandbox, "POST", f"{VWC_PATH}?fieldValidation=Warn", _with_unknown_fields()
    )
    assert warned.status == 201
    assert warned.warnings() == [
        '299 - "unknown field \\"webhooks[0].timeout\\""',
        '299 - "unknown field \\"spec\\""',
    ]
    assert "spec" not in warned.body
    ignored_body = _with_unknown_fields()
    ignored_body["metadata"]["name"] = "extra2"
    ignored = call(sandbox, "POST", f"{VWC_PATH}?fieldValidation=Ignore", ignored_body)
    assert ignored.status == 201
    assert ignored.warnings() == []
    assert "timeout" not in ignored.body["webhooks"][0]


def test_wrongly_typed_field_is_400(sandbox: SandboxServer) -> None:
    body = validating_configuration("typed")
    body["webhooks"][0]["timeoutSeconds"] = "ten"
    answer = call(sandbox, "POST", VWC_PATH, body)
    assert answer.status == 400
    assert "cannot unmarshal string" in answer.body["message"]


# -- validation (422)


def test_invalid_object_is_422_with_causes(sandbox: SandboxServer) -> None:
    bad = validating_configuration(
        "Bad_Name",
        webhooks=[webhook("short", sideEffects="Some", timeoutSeconds=31)],
    )
    answer = call(sandbox, "POST", VWC_PATH, bad)
    assert answer.status == 422
    assert_status(answer.body, 422, "Invalid")
    details = answer.body["details"]
    assert (details["name"], details["group"], details["kind"]) == (
        "Bad_Name",
        "admissionregistration.k8s.io",
        VWC,
    )
    causes = {(c["field"], c["reason"]) for c in details["causes"]}
    assert ("metadata.name", "FieldValueInvalid") in causes
    assert ("webhooks[0].name", "FieldValueInvalid") in causes
    assert ("webhooks[0].sideEffects", "FieldValueNotSupported") in causes
    assert ("webhooks[0].timeoutSeconds", "FieldValueInvalid") in causes
    assert answer.body["message"].startswith(
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "Bad_Name" '
        "is invalid: ["
    )


def test_update_validation_uses_the_stored_object(sandbox: SandboxServer) -> None:
    # V-40: Some is accepted on update only when the stored object already had it.
    legacy = validating_configuration("legacy", webhooks=[webhook(sideEffects="Some")])
    sandbox.store.create(legacy, validate=False)
    current = call(sandbox, "GET", f"{VWC_PATH}/legacy").body
    current["webhooks"][0]["timeoutSeconds"] = 5
    assert call(sandbox, "PUT", f"{VWC_PATH}/legacy", current).status == 200
    fresh = call(sandbox, "GET", f"{VWC_PATH}/alpha").body
    fresh["webhooks"][0]["sideEffects"] = "Some"
    assert call(sandbox, "PUT", f"{VWC_PATH}/alpha", fresh).status == 422


# -- deletecollection, namespaced kinds, faults


def test_deletecollection_with_selector(sandbox: SandboxServer) -> None:
    answer = call(sandbox, "DELETE", f"{VWC_PATH}?labelSelector=tier%3Dgold")
    assert answer.status == 200
    assert answer.body["kind"] == "ValidatingWebhookConfigurationList"
    assert sorted(i["metadata"]["name"] for i in answer.body["items"]) == [
        "alpha",
        "charlie",
    ]
    remaining = sandbox.store.list(ADMISSION, VWC)
    assert [o["metadata"]["name"] for o in remaining] == ["bravo"]


def test_namespaces_services_and_endpointslices(sandbox: SandboxServer) -> None:
    namespaces = call(sandbox, "GET", "/api/v1/namespaces").body["items"]
    team_a = next(n for n in namespaces if n["metadata"]["name"] == "team-a")
    assert team_a["metadata"]["labels"] == {
        "team": "a",
        "kubernetes.io/metadata.name": "team-a",
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "hook"},
        "spec": {"ports": [{"port": 443, "targetPort": 8443}]},
    }
    created = call(sandbox, "POST", "/api/v1/namespaces/team-a/services", service)
    assert created.status == 201
    assert created.body["metadata"]["namespace"] == "team-a"
    assert created.body["spec"]["clusterIP"].startswith("10.96.")
    missing_ns = call(sandbox, "POST", "/api/v1/namespaces/nope/services", service)
    assert missing_ns.status == 404
    endpoint_slice = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "hook-abcde",
            "labels": {"kubernetes.io/service-name": "hook"},
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": False}}],
    }
    path = "/apis/discovery.k8s.io/v1/namespaces/team-a/endpointslices"
    assert call(sandbox, "POST", path, endpoint_slice).status == 201
    every = call(sandbox, "GET", "/apis/discovery.k8s.io/v1/endpointslices").body
    assert [i["metadata"]["name"] for i in every["items"]] == ["hook-abcde"]
    assert (
        call(sandbox, "GET", "/api/v1/services").body["items"][0]["metadata"]["name"]
        == "hook"
    )
    assert (
        call(sandbox, "GET", "/api/v1/namespaces/default/services").body["items"] == []
    )
    assert call(sandbox, "GET", f"{path}/hook-abcde").status == 200
    # Deleting the namespace removes what lives in it.
    assert call(sandbox, "DELETE", "/api/v1/namespaces/team-a").status == 200
    assert call(sandbox, "GET", "/api/v1/services").body["items"] == []


def test_injected_faults(sandbox: SandboxServer) -> None:
    sandbox.inject_fault(VWC_PATH, status=503, times=2)
    for _ in range(2):
        answer = call(sandbox, "GET", VWC_PATH)
        assert answer.status == 503
        assert_status(answer.body, 503, "ServiceUnavailable")
    assert call(sandbox, "GET", VWC_PATH).status == 200

    sandbox.inject_fault(VWC_PATH, malformed=True)
    garbage = call(sandbox, "GET", VWC_PATH)
    assert garbage.status == 200 and isinstance(garbage.body, bytes)

    sandbox.inject_fault(VWC_PATH, delay=1.0)
    with pytest.raises(TimeoutError):
        call(sandbox, "GET", VWC_PATH, timeout=0.3)
    assert call(sandbox, "GET", VWC_PATH).status == 200


def test_a_request_held_when_the_sandbox_stops_gets_no_answer() -> None:
    """As when an apiserver dies: the held request's connection just closes."""
    sandbox = SandboxServer(name="dying", objects=[]).start()
    sandbox.inject_fault(VWC_PATH, delay=5.0)
    timer = threading.Timer(0.3, sandbox.stop)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            call(sandbox, "GET", VWC_PATH, timeout=10)
    finally:
        timer.join()
        sandbox.stop()
    assert time.monotonic() - started < 4  # dropped at the stop, not after the delay


def test_two_threads_stopping_the_sandbox_at_once_both_return_cleanly() -> None:
    sandbox = SandboxServer(name="twice", objects=[]).start()
    errors: list[BaseException] = []

    def stop() -> None:
        try:
            sandbox.stop()
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=stop) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    with pytest.raises(OSError):
        call(sandbox, "GET", VWC_PATH, timeout=2)
