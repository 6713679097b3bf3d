"""The kube client over a real socket: reads, writes, and every error mapping."""

import dataclasses
import socket

import pytest

from tests import factories
from tests.kube.certs import self_signed
from tests.kube.conftest import client_for, sandbox_access
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.kube import errors, reader, writer
from webhooks_ui.kube.access import ClusterAccess
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.watch import WatchStream

VALIDATING_PATH = reader.configurations_path(VALIDATING)


def test_paginated_list_returns_every_item_with_kind(sandbox, client):
    for index in range(4):
        sandbox.store.create(factories.configuration(f"extra-{index}"))
    result = reader.list_configurations(client, VALIDATING, page_size=2)
    assert result.pages == 3
    assert sorted(i["metadata"]["name"] for i in result.items) == [
        "existing",
        "extra-0",
        "extra-1",
        "extra-2",
        "extra-3",
    ]
    assert all(i["kind"] == VALIDATING for i in result.items)
    assert result.resource_version


def test_expired_continue_token_restarts_the_list(sandbox, client):
    for index in range(4):
        sandbox.store.create(factories.configuration(f"extra-{index}"))
    # The second page answers 410 (continue token expired): start over.
    calls = []
    original = client.request

    def counting(method, path, **kwargs):
        calls.append(dict(kwargs.get("query") or {}).get("continue"))
        if len(calls) == 2:
            sandbox.inject_fault(VALIDATING_PATH, status=410)
        return original(method, path, **kwargs)

    client.request = counting
    result = reader.list_configurations(client, VALIDATING, page_size=2)
    assert len(result.items) == 5
    assert calls[2] is None, "the list restarted from the first page"


def test_discovery_includes_subresources_and_preferred_versions(client):
    resources = reader.discover(client).resources
    keys = {
        (r["group"], r["version"], r["resource"], r["subresource"]) for r in resources
    }
    assert (
        "admissionregistration.k8s.io",
        "v1",
        "validatingwebhookconfigurations",
        "",
    ) in keys
    assert ("", "v1", "pods", "status") in keys
    pods = next(
        r for r in resources if r["resource"] == "pods" and not r["subresource"]
    )
    assert pods["namespaced"] and pods["preferred"] and pods["kind"] == "Pod"


def test_create_replace_delete_with_preconditions_and_dry_run(sandbox, client):
    obj = factories.configuration("new-one", kind=MUTATING)
    dry = writer.create_configuration(client, obj, dry_run=True)
    assert dry["metadata"]["name"] == "new-one"
    with pytest.raises(errors.NotFound):
        writer.get_configuration(client, MUTATING, "new-one")

    created = writer.create_configuration(client, obj)
    rv = created["metadata"]["resourceVersion"]
    with pytest.raises(errors.Conflict):
        writer.create_configuration(client, obj)

    changed = dict(created, webhooks=created["webhooks"][:1])
    changed["webhooks"] = [dict(changed["webhooks"][0], timeoutSeconds=5)]
    replaced = writer.replace_configuration(client, changed, resource_version=rv)
    assert replaced["webhooks"][0]["timeoutSeconds"] == 5
    with pytest.raises(errors.Conflict, match="changed since it was read"):
        writer.replace_configuration(client, changed, resource_version=rv)

    with pytest.raises(errors.Conflict):
        writer.delete_configuration(client, MUTATING, "new-one", resource_version=rv)
    writer.delete_configuration(
        client,
        MUTATING,
        "new-one",
        resource_version=replaced["metadata"]["resourceVersion"],
        dry_run=True,
    )
    assert writer.get_configuration(client, MUTATING, "new-one")
    writer.delete_configuration(
        client, MUTATING, "new-one", uid=created["metadata"]["uid"]
    )
    with pytest.raises(errors.NotFound):
        writer.get_configuration(client, MUTATING, "new-one")


def test_invalid_object_carries_status_causes(client):
    obj = factories.configuration("bad")
    del obj["webhooks"][0]["sideEffects"]
    with pytest.raises(errors.Invalid) as caught:
        writer.create_configuration(client, obj)
    assert caught.value.status == 422
    assert any(c.get("field") == "webhooks[0].sideEffects" for c in caught.value.causes)
    assert "invalid" in str(caught.value)


def test_wrong_token_is_unauthorized(sandbox):
    document = sandbox.kubeconfig()
    access = dataclasses.replace(sandbox_access(sandbox), token="wrong")
    with (
        KubeClient(access, name="sb") as bad,
        pytest.raises(errors.Unauthorized) as caught,
    ):
        reader.list_configurations(bad, VALIDATING, page_size=10)
    assert "wrong" not in str(caught.value)
    assert document["users"][0]["user"]["token"] not in str(caught.value)


def test_readonly_token_cannot_write(sandbox):
    with client_for(sandbox, readonly=True) as viewer:
        assert reader.list_configurations(viewer, VALIDATING, page_size=10).items
        with pytest.raises(errors.Forbidden, match="lack permission"):
            writer.create_configuration(viewer, factories.configuration("nope"))


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (500, errors.ServerError),
        (503, errors.ServerError),
        (404, errors.NotFound),
        (410, errors.Gone),
        (409, errors.Conflict),
        (403, errors.Forbidden),
        (401, errors.Unauthorized),
    ],
)
def test_injected_status_maps_to_our_type(sandbox, client, status, error_type):
    sandbox.inject_fault("/version", status=status)
    with pytest.raises(error_type) as caught:
        reader.server_version(client)
    assert f"HTTP {status}" in str(caught.value)


def test_malformed_body_is_reported(sandbox, client):
    sandbox.inject_fault(VALIDATING_PATH, malformed=True)
    with pytest.raises(errors.MalformedResponse, match="not valid JSON"):
        reader.list_configurations(client, VALIDATING, page_size=10)


def test_slow_answer_times_out(sandbox):
    sandbox.inject_fault("/version", delay=2.0)
    with (
        client_for(sandbox, timeout=0.5) as slow,
        pytest.raises(errors.Unreachable, match="no answer within 0.5 seconds"),
    ):
        reader.server_version(slow)


def test_connection_refused_is_unreachable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    access = ClusterAccess(server=f"https://127.0.0.1:{port}", token="t")
    with (
        KubeClient(access, name="gone") as kube,
        pytest.raises(errors.Unreachable, match="connection refused"),
    ):
        reader.server_version(kube)


def test_unresolvable_host_is_unreachable():
    access = ClusterAccess(server="https://no-such-host.invalid:6443", token="t")
    with (
        KubeClient(access, name="dns") as kube,
        pytest.raises(errors.Unreachable, match="does not resolve"),
    ):
        reader.server_version(kube)


def test_wrong_ca_is_a_tls_error(sandbox):
    other_ca, _ = self_signed("someone-else")
    access = dataclasses.replace(sandbox_access(sandbox), ca_pem=other_ca)
    with (
        KubeClient(access, name="sb") as kube,
        pytest.raises(errors.TlsError, match="certificate verify failed"),
    ):
        reader.server_version(kube)


def test_insecure_access_skips_verification(sandbox):
    access = dataclasses.replace(
        sandbox_access(sandbox), ca_pem=None, insecure_skip_tls_verify=True
    )
    with KubeClient(access, name="sb") as kube:
        assert reader.server_version(kube).startswith("v1.")


def test_client_does_not_touch_global_configuration(client):
    from kubernetes.client import ApiClient, Configuration

    reader.server_version(client)
    assert Configuration._default is None
    assert ApiClient._default is None


def test_watch_delivers_events_and_gone_after_compaction(sandbox, client):
    start = reader.list_configurations(client, VALIDATING, page_size=10)
    stream = WatchStream(client, VALIDATING, start.resource_version, timeout_seconds=5)
    sandbox.store.create(factories.configuration("watched"))
    events = iter(stream)
    event = next(events)
    assert (event.type, event.object["metadata"]["name"]) == ("ADDED", "watched")
    assert event.object["kind"] == VALIDATING
    stream.close()

    for index in range(3):
        sandbox.store.create(factories.configuration(f"later-{index}"))
    sandbox.store.compact()
    with pytest.raises(errors.Gone):
        list(WatchStream(client, VALIDATING, start.resource_version, timeout_seconds=5))
