"""The change-request workflow against a sandbox cluster over a real socket."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied

from tests import factories
from webhooks_ui.domain.kinds import API_VERSION_V1, VALIDATING
from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.kube.reader import configurations_path
from webhooks_ui.models import (
    AuditEvent,
    ChangeRequest,
    ChangeReview,
    ClusterMembership,
    ConfigurationRevision,
    WebhookConfiguration,
)
from webhooks_ui.services import changes, drafts
from webhooks_ui.services.sync import cluster_sync

VWC = configurations_path(VALIDATING)
OBJECTS = [
    factories.configuration("checks", webhooks=2),
    factories.configuration("other"),
]


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox("changes", copy.deepcopy(OBJECTS))
    yield sb
    sb.stop()


@pytest.fixture
def cluster(db, sandbox):
    found = factories.sandbox_cluster(sandbox)
    assert cluster_sync(cluster=found).status == "succeeded"
    return found


def _member(cluster, name: str, *roles: str) -> User:
    user = User.objects.create_user(name)
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


@pytest.fixture
def people(cluster):
    return {
        "author": _member(cluster, "author", "editor"),
        "reviewer": _member(cluster, "reviewer", "approver"),
        "reviewer2": _member(cluster, "reviewer2", "approver"),
        "operator": _member(cluster, "operator", "operator"),
        "viewer": _member(cluster, "viewer", "viewer"),
    }


def _live(cluster, name="checks") -> WebhookConfiguration:
    return WebhookConfiguration.objects.get(cluster=cluster, name=name)


def _timeout_draft(cluster, author, seconds=7, name="checks") -> ChangeRequest:
    draft = drafts.draft_start(
        user=author,
        configuration=_live(cluster, name),
        cluster=cluster,
        action="update",
    )
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][0]["timeoutSeconds"] = seconds
    drafts.draft_save(draft=draft, user=author, text=dump_yaml(obj))
    return ChangeRequest.objects.get(pk=draft.pk)


def _proposed(cluster, people, seconds=7) -> ChangeRequest:
    draft = _timeout_draft(cluster, people["author"], seconds)
    return changes.change_propose(
        change=draft, user=people["author"], title="Shorter timeout"
    )


def _approved(cluster, people) -> ChangeRequest:
    change = _proposed(cluster, people)
    changes.change_review(change=change, user=people["reviewer"], verdict="approve")
    change.refresh_from_db()
    assert change.state == "approved"
    return change


def _cluster_object(sandbox, name="checks") -> dict:
    return sandbox.store.get(API_VERSION_V1, VALIDATING, name)


def _exists(sandbox, name) -> bool:
    return any(
        o["metadata"]["name"] == name
        for o in sandbox.store.list(API_VERSION_V1, VALIDATING)
    )


def _actions(change) -> list[str]:
    return list(
        AuditEvent.objects.filter(change_id=change.pk)
        .order_by("at", "pk")
        .values_list("action", flat=True)
    )


def test_propose_approve_apply_pushes_records_and_audits(sandbox, cluster, people):
    change = _approved(cluster, people)
    outcome = changes.change_apply(change=change, user=people["operator"])

    assert outcome.status == "applied", outcome.message
    assert _cluster_object(sandbox)["webhooks"][0]["timeoutSeconds"] == 7
    change.refresh_from_db()
    assert change.state == "applied" and change.applied_by == people["operator"]
    # Resynced at once: the configuration page shows the new revision.
    live = _live(cluster)
    assert live.raw["webhooks"][0]["timeoutSeconds"] == 7
    assert change.applied_revision == live.revisions.order_by("-number").first()
    assert change.applied_revision.number == 2
    assert _actions(change) == [
        "change.proposed",
        "change.approved",
        "change.applied",
    ]
    applied = AuditEvent.objects.get(change_id=change.pk, action="change.applied")
    assert applied.detail["request"]["verb"] == "replace"
    sent = applied.detail["request"]["object"]
    assert sent["webhooks"][0]["timeoutSeconds"] == 7
    assert applied.detail["response"]["resourceVersion"] == live.resource_version
    assert applied.actor_name == "operator"


def test_a_proposal_must_validate_and_pass_the_dry_run(sandbox, cluster, people):
    draft = _timeout_draft(cluster, people["author"], seconds=31)
    with pytest.raises(changes.ChangeError) as raised:
        changes.change_propose(change=draft, user=people["author"])
    assert raised.value.code == "not_valid"
    draft.refresh_from_db()
    assert draft.state == "draft"

    good = _timeout_draft(cluster, people["author"], seconds=5)
    sandbox.inject_fault(VWC, status=403, method="PUT")
    with pytest.raises(changes.ChangeError) as raised:
        changes.change_propose(change=good, user=people["author"])
    assert raised.value.code == "dry_run_failed"
    assert "forbidden" in str(raised.value).lower()
    good.refresh_from_db()
    assert good.state == "draft" and good.dry_run_result["ok"] is False


def test_the_author_can_never_approve_their_own_change(cluster, people):
    boss = User.objects.create_superuser("boss", password="x")
    draft = _timeout_draft(cluster, boss)
    change = changes.change_propose(change=draft, user=boss)
    with pytest.raises(PermissionDenied):
        changes.change_review(change=change, user=boss, verdict="approve")
    # Not through the models either (admin, shell).
    with pytest.raises(PermissionError):
        ChangeReview.objects.create(
            change=change, reviewer=boss, verdict="approve", change_version=1
        )
    change.refresh_from_db()
    assert change.state == "in_review"
    assert not change.reviews.filter(verdict="approve").exists()


def test_reviewing_needs_the_approver_role(cluster, people):
    change = _proposed(cluster, people)
    for who in ("viewer", "operator"):
        with pytest.raises(PermissionDenied):
            changes.change_review(change=change, user=people[who], verdict="approve")
    # Anyone who sees the cluster may comment.
    changes.change_review(
        change=change, user=people["viewer"], verdict="comment", body="Why 7?"
    )
    assert change.reviews.get().body == "Why 7?"


def test_two_approvals_on_a_stricter_cluster(cluster, people):
    cluster.approvals_required = 2
    cluster.save()
    change = _proposed(cluster, people)
    changes.change_review(change=change, user=people["reviewer"], verdict="approve")
    change.refresh_from_db()
    assert change.state == "in_review"
    with pytest.raises(changes.ChangeError, match="2 approvals"):
        changes.change_apply(change=change, user=people["operator"])
    changes.change_review(change=change, user=people["reviewer2"], verdict="approve")
    change.refresh_from_db()
    assert change.state == "approved"


def test_editing_after_approval_resets_the_approvals(cluster, people):
    change = _approved(cluster, people)
    edited = changes.change_edit(
        change=change,
        user=people["author"],
        text=change.proposed_text.replace("timeoutSeconds: 7", "timeoutSeconds: 9"),
    )
    assert edited.state == "draft"
    assert changes.active_approvals(edited) == []
    dismissed = edited.reviews.get(verdict="approve")
    assert dismissed.dismissed_at is not None
    again = changes.change_propose(change=edited, user=people["author"])
    assert again.state == "in_review"
    assert "change.approvals_reset" in _actions(change)


def test_authors_apply_only_where_the_policy_allows(cluster, people):
    ClusterMembership.objects.create(
        cluster=cluster, user=people["author"], role="operator"
    )
    change = _approved(cluster, people)
    with pytest.raises(PermissionDenied):
        changes.change_apply(change=change, user=people["author"])
    cluster.author_may_apply = True
    cluster.save()
    assert changes.change_apply(change=change, user=people["author"]).applied


def test_apply_needs_the_operator_role_and_an_approved_change(cluster, people):
    change = _proposed(cluster, people)
    with pytest.raises(PermissionDenied):
        changes.change_apply(change=change, user=people["reviewer"])
    with pytest.raises(changes.ChangeError):
        changes.change_apply(change=change, user=people["operator"])


def test_change_window_blocks_apply_outside_it(cluster, people):
    cluster.change_window = "Mon-Fri 09:00-17:00"
    cluster.save()
    change = _approved(cluster, people)
    saturday = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    with pytest.raises(changes.ChangeError, match="change window"):
        changes.change_apply(change=change, user=people["operator"], now=saturday)
    monday = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
    assert changes.change_apply(change=change, user=people["operator"], now=monday)


def test_a_change_window_in_a_time_zone_says_when_it_opens_there(cluster, people):
    cluster.change_window = "Mon-Fri 09:00-17:00 America/New_York"
    cluster.save()
    change = _approved(cluster, people)
    # 10:00 UTC on a Monday is 05:00 in New York: closed until 09:00 there.
    monday_morning = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
    with pytest.raises(changes.ChangeError) as refused:
        changes.change_apply(change=change, user=people["operator"], now=monday_morning)
    assert "(Mon-Fri 09:00-17:00 America/New_York)" in str(refused.value)
    assert "It opens Mon 2026-11-23 09:00 America/New_York." in str(refused.value)
    change.refresh_from_db()
    assert change.state == "approved"
    new_york_office_hours = datetime(2026, 11, 23, 14, 30, tzinfo=UTC)
    assert changes.change_apply(
        change=change, user=people["operator"], now=new_york_office_hours
    )


def test_out_of_band_change_makes_it_stale_then_one_click_rebase(
    sandbox, cluster, people
):
    change = _approved(cluster, people)
    # Someone edits another field directly in the cluster.
    obj = _cluster_object(sandbox)
    obj["webhooks"][1]["failurePolicy"] = "Ignore"
    sandbox.store.replace(obj)

    outcome = changes.change_apply(change=change, user=people["operator"])
    assert outcome.status == "stale"
    change.refresh_from_db()
    assert change.state == "stale"
    assert change.live_object["webhooks"][1]["failurePolicy"] == "Ignore"
    # Nothing was written by the apply.
    assert _cluster_object(sandbox)["webhooks"][0].get("timeoutSeconds") != 7

    rebased = changes.change_rebase(change=change, user=people["author"])
    assert rebased.state == "in_review"  # validated, dry-run, needs fresh approval
    assert changes.active_approvals(rebased) == []
    merged = rebased.proposed_object
    assert merged["webhooks"][0]["timeoutSeconds"] == 7
    assert merged["webhooks"][1]["failurePolicy"] == "Ignore"
    changes.change_review(change=rebased, user=people["reviewer"], verdict="approve")
    assert changes.change_apply(change=rebased, user=people["operator"]).applied
    pushed = _cluster_object(sandbox)
    assert pushed["webhooks"][0]["timeoutSeconds"] == 7
    assert pushed["webhooks"][1]["failurePolicy"] == "Ignore"


def test_overlapping_changes_need_manual_resolution(sandbox, cluster, people):
    change = _approved(cluster, people)
    obj = _cluster_object(sandbox)
    obj["webhooks"][0]["timeoutSeconds"] = 3
    sandbox.store.replace(obj)
    assert changes.change_apply(change=change, user=people["operator"]).status == (
        "stale"
    )
    with pytest.raises(changes.ChangeError, match="timeoutSeconds"):
        changes.change_rebase(change=change, user=people["author"])
    manual = changes.change_rebase(change=change, user=people["author"], manual=True)
    assert manual.state == "draft"
    now_live = _cluster_object(sandbox)["metadata"]["resourceVersion"]
    assert manual.base_resource_version == now_live
    assert "timeoutSeconds: 7" in manual.proposed_text


def test_sync_marks_open_changes_stale(sandbox, cluster, people):
    change = _proposed(cluster, people)
    obj = _cluster_object(sandbox)
    obj["metadata"]["labels"] = {"touched": "yes"}
    sandbox.store.replace(obj)
    cluster_sync(cluster=cluster)
    change.refresh_from_db()
    assert change.state == "stale"
    assert "changed in the cluster" in change.outcome["message"]


def test_conflict_at_the_moment_of_apply_turns_it_stale(sandbox, cluster, people):
    change = _approved(cluster, people)
    # The dry run passes; the real write meets a 409.
    sandbox.inject_fault(VWC, status=409, method="PUT", skip=1)
    outcome = changes.change_apply(change=change, user=people["operator"])
    assert outcome.status == "stale"
    change.refresh_from_db()
    assert change.state == "stale"
    assert _cluster_object(sandbox)["webhooks"][0].get("timeoutSeconds") != 7
    assert _live(cluster).revisions.count() == 1


def test_apply_failure_leaves_it_failed_and_nothing_half_written(
    sandbox, cluster, people
):
    change = _approved(cluster, people)
    before = _live(cluster).raw
    sandbox.inject_fault(VWC, status=500, method="PUT", skip=1)
    outcome = changes.change_apply(change=change, user=people["operator"])
    assert outcome.status == "failed"
    change.refresh_from_db()
    assert change.state == "failed"
    assert "rejected" in change.outcome["message"]
    assert _live(cluster).raw == before
    assert (
        ConfigurationRevision.objects.filter(configuration__name="checks").count() == 1
    )
    failed = AuditEvent.objects.get(change_id=change.pk, action="change.apply_failed")
    assert failed.detail["response"]["status"] == 500
    # A retry with the same approvals goes through.
    assert changes.change_apply(change=change, user=people["operator"]).applied


def test_unreachable_cluster_sends_nothing_and_keeps_it_approved(
    sandbox, cluster, people
):
    change = _approved(cluster, people)
    sandbox.inject_fault(VWC, status=503, method="GET")
    outcome = changes.change_apply(change=change, user=people["operator"])
    assert outcome.status == "not_sent"
    change.refresh_from_db()
    assert change.state == "approved"


def test_double_apply_pushes_once(sandbox, cluster, people):
    change = _approved(cluster, people)
    assert changes.change_apply(change=change, user=people["operator"]).applied
    with pytest.raises(changes.ChangeError, match="approved"):
        changes.change_apply(change=change, user=people["operator"])
    assert AuditEvent.objects.filter(action="change.applied").count() == 1


def test_delete_change_deletes_with_preconditions(sandbox, cluster, people):
    draft = drafts.draft_start(
        user=people["author"],
        configuration=_live(cluster, "other"),
        cluster=cluster,
        action="delete",
    )
    change = changes.change_propose(change=draft, user=people["author"])
    changes.change_review(change=change, user=people["reviewer"], verdict="approve")
    assert changes.change_apply(change=change, user=people["operator"]).applied
    assert not _exists(sandbox, "other")
    assert _live(cluster, "other").is_deleted


def test_rollback_opens_a_reviewed_change_restoring_a_revision(
    sandbox, cluster, people
):
    change = _approved(cluster, people)
    changes.change_apply(change=change, user=people["operator"])
    first = _live(cluster).revisions.get(number=1)
    restore = changes.change_restore(user=people["author"], revision=first)
    assert restore.state == "draft" and restore.action == "update"
    assert restore.restores_revision == first
    assert restore.validation_errors == []
    # The server defaulted the timeout to 10 in revision 1: that is restored.
    assert "timeoutSeconds: 10" in restore.proposed_text
    proposed = changes.change_propose(change=restore, user=people["author"])
    changes.change_review(change=proposed, user=people["reviewer"], verdict="approve")
    assert changes.change_apply(change=proposed, user=people["operator"]).applied
    assert _cluster_object(sandbox)["webhooks"][0]["timeoutSeconds"] == 10


def test_withdraw_and_reject_close_the_change(cluster, people):
    change = _proposed(cluster, people)
    with pytest.raises(PermissionDenied):
        changes.change_withdraw(change=change, user=people["reviewer"])
    changes.change_review(
        change=change, user=people["reviewer"], verdict="reject", body="No."
    )
    change.refresh_from_db()
    assert change.state == "rejected"
    other = _proposed(cluster, people, seconds=8)
    assert changes.change_withdraw(change=other, user=people["author"]).state == (
        "withdrawn"
    )


def test_promote_opens_linked_changes_reviewed_per_cluster(sandbox, cluster, people):
    prod_sb = factories.start_sandbox("changes-prod", copy.deepcopy(OBJECTS))
    try:
        prod = factories.sandbox_cluster(prod_sb, name="prod")
        assert cluster_sync(cluster=prod).status == "succeeded"
        prod.approvals_required = 2
        prod.save()
        ClusterMembership.objects.create(
            cluster=prod, user=people["author"], role="editor"
        )
        change = _approved(cluster, people)
        changes.change_apply(change=change, user=people["operator"])
        results = changes.change_promote(
            change=change, user=people["author"], targets=[prod]
        )
        assert len(results) == 1
        promoted = results[0].change
        assert promoted is not None and promoted.cluster == prod
        assert promoted.promoted_from == change
        assert promoted.state == "in_review", results[0].message
        assert promoted.proposed_object["webhooks"][0]["timeoutSeconds"] == 7
        # prod's own policy: two approvals.
        ClusterMembership.objects.create(
            cluster=prod, user=people["reviewer"], role="approver"
        )
        changes.change_review(
            change=promoted, user=people["reviewer"], verdict="approve"
        )
        promoted.refresh_from_db()
        assert promoted.state == "in_review"
    finally:
        prod_sb.stop()


def test_audit_events_are_append_only(cluster, people):
    change = _proposed(cluster, people)
    event = AuditEvent.objects.filter(change_id=change.pk).first()
    event.summary = "rewritten"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.update(summary="x")
