"""Drafts against a sandbox cluster over a real socket: start, save, dry-run."""

from __future__ import annotations

import base64
import copy

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied

from tests import factories
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import ChangeRequest, ClusterMembership, WebhookConfiguration
from webhooks_ui.services import drafts
from webhooks_ui.services.sync import cluster_sync

CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nnot real\n").decode()


def _injected() -> dict:
    obj = factories.configuration("injected", kind=MUTATING)
    obj["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "ns/cert"}
    obj["webhooks"][0]["clientConfig"]["caBundle"] = CA
    return obj


OBJECTS = [factories.configuration("checks", webhooks=2), _injected()]


@pytest.fixture(scope="module")
def sandbox():
    sb = factories.start_sandbox("drafts", copy.deepcopy(OBJECTS))
    yield sb
    sb.stop()


@pytest.fixture
def cluster(db, sandbox):
    found = factories.sandbox_cluster(sandbox)
    assert cluster_sync(cluster=found).status == "succeeded"
    return found


def _member(cluster, name: str, role: str) -> User:
    user = User.objects.create_user(name)
    ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


@pytest.fixture
def editor(cluster) -> User:
    return _member(cluster, "ed", "editor")


def _live(cluster, name: str = "checks") -> WebhookConfiguration:
    return WebhookConfiguration.objects.get(cluster=cluster, name=name)


def _start(editor, cluster, name="checks", action="update") -> ChangeRequest:
    return drafts.draft_start(
        user=editor, configuration=_live(cluster, name), cluster=cluster, action=action
    )


def test_update_draft_starts_from_the_live_object_without_server_fields(
    editor, cluster
):
    live = _live(cluster)
    draft = _start(editor, cluster)
    assert draft.state == "draft" and draft.action == "update"
    assert draft.base_object == live.raw
    assert draft.base_resource_version == live.resource_version
    assert "resourceVersion" not in draft.proposed_text
    assert "managedFields" not in draft.proposed_text
    assert draft.validation_errors == []


def test_start_resumes_the_open_draft(editor, cluster):
    first = _start(editor, cluster)
    drafts.draft_save(draft=first, user=editor, text="broken: [")
    again = _start(editor, cluster)
    assert again.pk == first.pk and again.proposed_text == "broken: ["


def test_viewer_cannot_start_a_draft(cluster):
    viewer = _member(cluster, "vi", "viewer")
    with pytest.raises(PermissionDenied):
        _start(viewer, cluster)


def test_invalid_yaml_is_kept_verbatim_and_reported_with_line_and_column(
    editor, cluster
):
    draft = _start(editor, cluster)
    text = "apiVersion: x\nmetadata:\n  name: [unclosed\n"
    state = drafts.draft_save(draft=draft, user=editor, text=text)
    draft.refresh_from_db()
    assert draft.proposed_text == text
    assert draft.proposed_object is None
    assert not state.parses
    [row] = state.errors
    assert row["reason"] == drafts.PARSE_ERROR and row["line"] is not None
    assert "line" in row["message"] and "column" in row["message"]


def test_validation_errors_carry_apiserver_paths_and_lines(editor, cluster):
    draft = _start(editor, cluster)
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][1]["rules"][0]["operations"] = ["CREATE", "EXPLODE"]
    obj["webhooks"][0]["sideEffects"] = "Sometimes"
    text = dump_yaml(obj)
    state = drafts.draft_save(draft=draft, user=editor, text=text)
    fields = {row["field"]: row for row in state.errors}
    assert "webhooks[1].rules[0].operations[1]" in fields
    assert "webhooks[0].sideEffects" in fields
    line = fields["webhooks[1].rules[0].operations[1]"]["line"]
    assert "EXPLODE" in text.splitlines()[line - 1]
    draft.refresh_from_db()
    assert draft.proposed_text == text
    assert draft.validation_errors == state.errors


def test_unknown_fields_survive_a_save(editor, cluster):
    draft = _start(editor, cluster)
    text = draft.proposed_text.replace(
        "webhooks:\n", "x-team-notes: keep me\nwebhooks:\n", 1
    )
    drafts.draft_save(draft=draft, user=editor, text=text)
    draft.refresh_from_db()
    assert draft.proposed_object["x-team-notes"] == "keep me"
    assert "x-team-notes: keep me" in draft.proposed_text


def test_update_may_not_rename(editor, cluster):
    draft = _start(editor, cluster)
    text = draft.proposed_text.replace("name: checks", "name: other", 1)
    state = drafts.draft_save(draft=draft, user=editor, text=text)
    assert "metadata.name" in {row["field"] for row in state.errors}


def test_another_user_cannot_save_or_dry_run(editor, cluster):
    draft = _start(editor, cluster)
    other = _member(cluster, "ed2", "editor")
    with pytest.raises(PermissionDenied):
        drafts.draft_save(draft=draft, user=other, text="x: 1")
    with pytest.raises(PermissionDenied):
        drafts.draft_dry_run(draft=draft, user=other)


def test_losing_the_editor_role_stops_saving(editor, cluster):
    draft = _start(editor, cluster)
    ClusterMembership.objects.filter(user=editor).delete()
    with pytest.raises(PermissionDenied):
        drafts.draft_save(draft=draft, user=editor, text="x: 1")


def test_dry_run_accepts_a_valid_update(editor, cluster):
    draft = _start(editor, cluster)
    text = draft.proposed_text.replace("failurePolicy: Fail", "failurePolicy: Ignore")
    drafts.draft_save(draft=draft, user=editor, text=text)
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert result.ok, result.message
    draft.refresh_from_db()
    assert draft.dry_run_result["ok"] is True
    assert draft.proposed_text == text
    # dryRun=All persisted nothing.
    assert cluster_sync(cluster=cluster).updated_count == 0


def test_dry_run_rejection_maps_422_causes_to_fields(editor, cluster):
    draft = _start(editor, cluster)
    text = draft.proposed_text.replace("sideEffects: None", "sideEffects: Maybe", 1)
    drafts.draft_save(draft=draft, user=editor, text=text)
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert not result.ok
    fields = [row["field"] for row in result.errors]
    assert "webhooks[0].sideEffects" in fields
    assert result.errors[0]["line"] is not None
    draft.refresh_from_db()
    assert draft.dry_run_result["errors"] == result.errors
    assert draft.proposed_text == text


def test_dry_run_on_unreachable_cluster_keeps_the_draft(editor, cluster, sandbox):
    draft = _start(editor, cluster)
    text = draft.proposed_text + "# my edit\n"
    drafts.draft_save(draft=draft, user=editor, text=text)
    sandbox.inject_fault("/apis/admissionregistration.k8s.io", status=403)
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert not result.ok and "forbidden" in result.message
    # The same draft on a cluster nobody listens for.
    gone = factories.token_cluster("gone", server="https://127.0.0.1:1")
    ChangeRequest.objects.filter(pk=draft.pk).update(cluster=gone)
    ClusterMembership.objects.create(cluster=gone, user=editor, role="editor")
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert not result.ok and "refused" in result.message
    draft.refresh_from_db()
    assert draft.proposed_text == text
    assert draft.dry_run_result["message"] == result.message


def test_stale_base_is_a_conflict(editor, cluster):
    draft = _start(editor, cluster)
    draft.base_resource_version = "1"
    draft.save()
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert not result.ok and "changed" in result.message


def test_injected_ca_bundle_is_carried_over_when_left_out(editor, cluster):
    draft = _start(editor, cluster, name="injected")
    assert CA in draft.proposed_text
    text = draft.proposed_text.replace(f"caBundle: {CA}", "path: /mutate")
    state = drafts.draft_save(draft=draft, user=editor, text=text)
    assert state.carried_ca_bundles == ["w0.injected.example.com"]
    draft.refresh_from_db()
    hook = draft.proposed_object["webhooks"][0]
    assert hook["clientConfig"]["caBundle"] == CA
    assert CA not in draft.proposed_text  # the text stays as typed


def test_changed_ca_bundle_is_kept(editor, cluster):
    draft = _start(editor, cluster, name="injected")
    other = base64.b64encode(b"other").decode()
    text = draft.proposed_text.replace(CA, other)
    state = drafts.draft_save(draft=draft, user=editor, text=text)
    assert state.carried_ca_bundles == []
    draft.refresh_from_db()
    assert draft.proposed_object["webhooks"][0]["clientConfig"]["caBundle"] == other


def test_create_draft_follows_the_name_and_dry_runs(editor, cluster):
    draft = drafts.draft_start(
        user=editor, configuration=None, cluster=cluster, action="create", kind=MUTATING
    )
    assert draft.base_object is None and draft.validation_errors == []
    text = draft.proposed_text.replace("new-webhook-configuration", "brand-new")
    drafts.draft_save(draft=draft, user=editor, text=text)
    draft.refresh_from_db()
    assert draft.name == "brand-new"
    assert drafts.draft_dry_run(draft=draft, user=editor).ok
    taken = text.replace("brand-new", "checks").replace(MUTATING, VALIDATING)
    taken = taken.replace("  reinvocationPolicy: Never\n", "")
    drafts.draft_save(draft=draft, user=editor, text=taken)
    result = drafts.draft_dry_run(draft=draft, user=editor)
    assert not result.ok and "already exists" in result.message


def test_delete_draft_dry_runs_with_preconditions(editor, cluster):
    draft = _start(editor, cluster, action="delete")
    assert draft.proposed_object is None and draft.base_object
    with pytest.raises(drafts.DraftError):
        drafts.draft_save(draft=draft, user=editor, text="x: 1")
    assert drafts.draft_dry_run(draft=draft, user=editor).ok
    assert _live(cluster).deleted_at is None


def test_clone_makes_a_create_draft_without_injected_ca(editor, cluster, sandbox):
    target = factories.sandbox_cluster(sandbox, name="target")
    ClusterMembership.objects.create(cluster=target, user=editor, role="editor")
    draft = drafts.draft_clone(
        user=editor,
        configuration=_live(cluster, "injected"),
        target=target,
        name="copy",
    )
    assert (draft.cluster, draft.action, draft.name) == (target, "create", "copy")
    assert "caBundle" not in draft.proposed_text
    assert "resourceVersion" not in draft.proposed_text


def test_clone_needs_editor_on_the_target(editor, cluster, sandbox):
    target = factories.sandbox_cluster(sandbox, name="target")
    with pytest.raises(PermissionDenied):
        drafts.draft_clone(user=editor, configuration=_live(cluster), target=target)


def test_discard(editor, cluster):
    draft = _start(editor, cluster)
    drafts.draft_discard(draft=draft, user=editor)
    assert not ChangeRequest.objects.filter(pk=draft.pk).exists()
