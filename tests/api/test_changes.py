"""Change requests through the API, against a sandbox cluster over a real socket:
a script opens one from a merge patch, proposes it, another user approves, an
operator applies, and the audit log tells every step."""

from __future__ import annotations

import copy
import csv
import io

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests import factories
from tests.api.conftest import error_of
from webhooks_ui.domain.kinds import API_VERSION_V1, VALIDATING
from webhooks_ui.kube.reader import configurations_path
from webhooks_ui.models import (
    ChangeRequest,
    ClusterMembership,
    ConfigurationRevision,
    WebhookConfiguration,
)
from webhooks_ui.services.sync import cluster_sync
from webhooks_ui.services.tokens import api_token_create

OBJECTS = [
    factories.configuration("checks", webhooks=2),
    factories.configuration("other"),
]
CHANGES = "/api/v1/changes/"
VWC = configurations_path(VALIDATING)


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox("gamma", copy.deepcopy(OBJECTS))
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
        "operator": _member(cluster, "operator", "operator"),
        "viewer": _member(cluster, "viewer", "viewer"),
        "editor2": _member(cluster, "editor2", "editor", "approver"),
    }


def client_for(user: User) -> APIClient:
    """A script's client: its own bearer token."""
    client = APIClient()
    secret = api_token_create(user=user, name="script").secret
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def _patch_body(**extra) -> dict:
    return {
        "cluster": "gamma",
        "action": "update",
        "kind": "validating",
        "name": "checks",
        "patch": {"webhooks": [_hook(7)]},
        "title": "Shorter timeout",
        **extra,
    }


def _hook(timeout: int) -> dict:
    hook = factories.webhook("check-0.example.com")
    hook["timeoutSeconds"] = timeout
    return hook


def _live_in_cluster(sandbox, name="checks") -> dict:
    return sandbox.store.get(API_VERSION_V1, VALIDATING, name)


def _created(people, **extra) -> dict:
    response = client_for(people["author"]).post(
        CHANGES, _patch_body(**extra), format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_script_flow_patch_propose_approve_apply_audit(sandbox, cluster, people):
    author = client_for(people["author"])
    reviewer = client_for(people["reviewer"])
    operator = client_for(people["operator"])

    created = author.post(CHANGES, _patch_body(), format="json")
    assert created.status_code == 201, created.json()
    change = created.json()
    url = f"{CHANGES}{change['id']}/"
    assert created["Location"] == url
    assert created["ETag"] == change["etag"]
    assert change["state"] == "draft" and change["valid"] is True
    assert change["object"]["webhooks"] == [_hook(7)]
    assert change["base_resource_version"]
    assert change["propose_error"] is None

    proposed = author.post(url + "propose/", HTTP_IF_MATCH=change["etag"])
    assert proposed.status_code == 200, proposed.json()
    assert proposed.json()["state"] == "in_review"
    assert proposed.json()["dry_run"]["ok"] is True
    assert proposed.json()["dry_run"]["current"] is True

    approved = reviewer.post(url + "approve/", {"body": "LGTM"}, format="json")
    assert approved.status_code == 200, approved.json()
    body = approved.json()
    assert body["state"] == "approved"
    assert body["approvals"] == {"count": 1, "required": 1}
    assert [r["verdict"] for r in body["reviews"]] == ["approve"]

    detail = operator.get(url)
    assert detail.json()["apply_blockers"] == []
    applied = operator.post(url + "apply/", HTTP_IF_MATCH=detail["ETag"])
    assert applied.status_code == 200, applied.json()
    result = applied.json()
    assert result["outcome"]["status"] == "applied"
    assert result["change"]["state"] == "applied"
    assert result["change"]["applied_by"] == "operator"
    assert result["change"]["applied_revision"] == 2
    live = _live_in_cluster(sandbox)
    assert [h["timeoutSeconds"] for h in live["webhooks"]] == [7]
    assert (
        WebhookConfiguration.objects.get(cluster=cluster, name="checks").raw["webhooks"]
        == live["webhooks"]
    )

    audit = operator.get(f"/api/v1/audit/?change={change['id']}").json()
    actions = [e["action"] for e in reversed(audit["results"])]
    assert actions == ["change.proposed", "change.approved", "change.applied"]
    assert [e["actor"] for e in reversed(audit["results"])] == [
        "author",
        "reviewer",
        "operator",
    ]
    applied_event = audit["results"][0]
    assert applied_event["detail"]["request"]["verb"] == "replace"
    assert applied_event["cluster"] == "gamma"
    assert applied_event["kind"] == VALIDATING and applied_event["name"] == "checks"

    export = operator.get(f"/api/v1/audit/export/?format=csv&change={change['id']}")
    assert export.status_code == 200
    assert export["Content-Type"].startswith("text/csv")
    assert "attachment" in export["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert rows[0] == [
        "at",
        "actor",
        "action",
        "cluster",
        "kind",
        "name",
        "change",
        "summary",
    ]
    assert [r[2] for r in rows[1:]] == [
        "change.applied",
        "change.approved",
        "change.proposed",
    ]
    assert {r[6] for r in rows[1:]} == {str(change["id"])}


def test_create_from_object_text_and_create_action(cluster, people):
    author = client_for(people["author"])
    obj = factories.configuration("brand-new")
    from_object = author.post(
        CHANGES,
        {"cluster": "gamma", "action": "create", "kind": "validating", "object": obj},
        format="json",
    )
    assert from_object.status_code == 201, from_object.json()
    assert from_object.json()["name"] == "brand-new"
    assert from_object.json()["action"] == "create"
    assert from_object.json()["valid"] is True

    text = "apiVersion: admissionregistration.k8s.io/v1\nkind: Validating"
    from_text = author.post(
        CHANGES,
        {
            "cluster": "gamma",
            "action": "update",
            "kind": "ValidatingWebhookConfiguration",
            "name": "other",
            "text": text + "WebhookConfiguration\nmetadata: {name: other}\n",
        },
        format="json",
    )
    assert from_text.status_code == 201, from_text.json()
    body = from_text.json()
    assert body["text"].startswith(text)  # verbatim
    assert body["valid"] is True  # a configuration without webhooks is valid
    assert body["object"]["metadata"] == {"name": "other"}


def test_invalid_content_is_saved_as_a_draft_with_its_errors(cluster, people):
    hook = _hook(99)
    body = _patch_body(patch={"webhooks": [hook]}, propose=True)
    response = client_for(people["author"]).post(CHANGES, body, format="json")
    assert response.status_code == 201
    change = response.json()
    assert change["state"] == "draft"
    assert change["valid"] is False
    assert change["validation_errors"][0]["field"] == "webhooks[0].timeoutSeconds"
    assert change["validation_errors"][0]["line"]
    assert change["propose_error"]["code"] == "not_valid"
    proposed = client_for(people["author"]).post(f"{CHANGES}{change['id']}/propose/")
    assert proposed.status_code == 422
    assert error_of(proposed)["code"] == "not_valid"


def test_unparseable_text_is_kept_verbatim(cluster, people):
    body = {
        "cluster": "gamma",
        "action": "update",
        "kind": "validating",
        "name": "checks",
        "text": "webhooks: [\n",
    }
    response = client_for(people["author"]).post(CHANGES, body, format="json")
    assert response.status_code == 201
    assert response.json()["text"] == "webhooks: [\n"
    assert response.json()["object"] is None
    assert response.json()["validation_errors"][0]["reason"] == "ParseError"


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"text": "a: b"}, "patch"),  # patch and text both
        ({"action": "create", "name": ""}, "patch"),  # a patch is for update only
        ({"name": "no-such-configuration"}, "name"),
        ({"action": "delete"}, "patch"),  # a delete takes no content
        ({"kind": "pods"}, "kind"),
        ({"patch": [1, 2]}, "patch"),
    ],
)
def test_malformed_create_requests_are_400(cluster, people, extra, field):
    response = client_for(people["author"]).post(
        CHANGES, _patch_body(**extra), format="json"
    )
    assert response.status_code == 400, response.json()
    error = error_of(response)
    assert error["code"] == "invalid"
    assert field in error["details"], error


def test_reusing_your_open_draft_answers_200(cluster, people):
    first = _created(people)
    again = client_for(people["author"]).post(
        CHANGES, _patch_body(patch={"webhooks": [_hook(9)]}), format="json"
    )
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    assert again["ETag"] != first["etag"]  # its content changed
    assert again.json()["object"]["webhooks"][0]["timeoutSeconds"] == 9


def test_delete_change(sandbox, cluster, people):
    body = {"cluster": "gamma", "action": "delete", "kind": "validating"}
    response = client_for(people["author"]).post(
        CHANGES, {**body, "name": "other", "propose": True}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["state"] == "in_review"
    assert response.json()["valid"] is True


def test_the_author_can_never_approve(cluster, people):
    people["author"].is_superuser = True
    people["author"].save()
    change = _created(people, propose=True)
    assert change["state"] == "in_review"
    response = client_for(people["author"]).post(f"{CHANGES}{change['id']}/approve/")
    assert response.status_code == 403
    assert "own" in error_of(response)["message"]
    assert ChangeRequest.objects.get(pk=change["id"]).state == "in_review"


def test_drafts_are_private_and_hidden_clusters_are_404(cluster, people):
    change = _created(people)
    url = f"{CHANGES}{change['id']}/"
    assert client_for(people["reviewer"]).get(url).status_code == 404
    assert client_for(people["reviewer"]).get(CHANGES).json()["count"] == 0
    assert client_for(people["author"]).get(CHANGES).json()["count"] == 1
    outsider = User.objects.create_user("outsider")
    client_for(people["author"]).post(url + "propose/")
    assert client_for(people["reviewer"]).get(url).status_code == 200
    for response in [
        client_for(outsider).get(url),
        client_for(outsider).post(url + "approve/"),
        client_for(outsider).post(CHANGES, _patch_body(), format="json"),
    ]:
        assert response.status_code == 404, response.json()
        assert error_of(response)["code"] == "not_found"


def test_if_match_guards_edits(cluster, people):
    author = client_for(people["author"])
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    etag = change["etag"]

    missing = author.patch(url, {"text": "a: b\n"}, format="json")
    assert missing.status_code == 428
    assert error_of(missing)["code"] == "precondition_required"

    titled = author.patch(url, {"title": "Renamed"}, format="json")  # no If-Match
    assert titled.status_code == 200
    assert titled["ETag"] != etag

    stale = author.patch(url, {"object": {}}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    error = error_of(stale)
    assert error["code"] == "precondition_failed"
    assert error["details"]["etag"] == titled["ETag"]
    assert author.post(url + "withdraw/", HTTP_IF_MATCH=etag).status_code == 412

    obj = change["object"]
    obj["webhooks"][0]["timeoutSeconds"] = 3
    edited = author.patch(
        url, {"object": obj}, format="json", HTTP_IF_MATCH=titled["ETag"]
    )
    assert edited.status_code == 200, edited.json()
    assert edited.json()["state"] == "draft"  # back to draft, to propose again
    assert edited.json()["title"] == "Renamed"
    assert edited.json()["object"]["webhooks"][0]["timeoutSeconds"] == 3
    assert author.get(url)["ETag"] == edited["ETag"]
    wildcard = author.patch(url, {"description": "x"}, format="json", HTTP_IF_MATCH="*")
    assert wildcard.status_code == 200


def test_edit_after_approval_dismisses_it(cluster, people):
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    reviewer = client_for(people["reviewer"])
    assert reviewer.post(url + "approve/").json()["state"] == "approved"
    author = client_for(people["author"])
    current = author.get(url)
    edited = author.patch(
        url,
        {
            "text": current.json()["text"].replace(
                "timeoutSeconds: 7", "timeoutSeconds: 8"
            )
        },
        format="json",
        HTTP_IF_MATCH=current["ETag"],
    )
    assert edited.status_code == 200
    assert edited.json()["approvals"]["count"] == 0
    assert edited.json()["reviews"][0]["dismissed_at"] is not None


def test_review_actions_and_their_errors(cluster, people):
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    viewer = client_for(people["viewer"])
    reviewer = client_for(people["reviewer"])
    assert viewer.post(url + "approve/").status_code == 403
    comment = viewer.post(url + "comment/", {"body": "why 7?"}, format="json")
    assert comment.status_code == 200
    assert comment.json()["reviews"][-1]["verdict"] == "comment"
    empty = reviewer.post(url + "request-changes/", {}, format="json")
    assert empty.status_code == 422
    asked = reviewer.post(url + "request-changes/", {"body": "use 8"}, format="json")
    assert asked.status_code == 200
    rejected = reviewer.post(url + "reject/", {"body": "no"}, format="json")
    assert rejected.json()["state"] == "rejected"
    again = reviewer.post(url + "approve/")
    assert again.status_code == 409
    assert error_of(again)["code"] == "invalid_state"


def test_reopen_withdraw_and_dry_run(cluster, people):
    author = client_for(people["author"])
    change = _created(people)
    url = f"{CHANGES}{change['id']}/"
    dry = author.post(url + "dry-run/")
    assert dry.status_code == 200, dry.json()
    assert dry.json()["ok"] is True
    assert dry.json()["change"]["dry_run"]["ok"] is True
    assert author.post(url + "propose/").status_code == 200
    assert client_for(people["operator"]).post(url + "withdraw/").status_code == 403
    assert author.post(url + "reopen/").json()["state"] == "draft"
    assert author.post(url + "withdraw/").json()["state"] == "withdrawn"
    assert author.post(url + "withdraw/").status_code == 409


def test_apply_needs_operator_and_approval(cluster, people):
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    assert client_for(people["reviewer"]).post(url + "apply/").status_code == 403
    early = client_for(people["operator"]).post(url + "apply/")
    assert early.status_code == 409
    assert error_of(early)["code"] == "invalid_state"


def test_stale_apply_is_409_with_the_outcome_then_rebase(sandbox, cluster, people):
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    client_for(people["reviewer"]).post(url + "approve/")
    # Someone changes another field in the cluster, out of band.
    live = _live_in_cluster(sandbox)
    live["metadata"]["labels"] = {"team": "platform"}
    sandbox.store.replace(live)
    response = client_for(people["operator"]).post(url + "apply/")
    assert response.status_code == 409, response.json()
    error = error_of(response)
    assert error["code"] == "stale"
    assert error["details"]["outcome"]["status"] == "stale"
    assert error["details"]["change"]["state"] == "stale"

    rebased = client_for(people["author"]).post(url + "rebase/", {}, format="json")
    assert rebased.status_code == 200, rebased.json()
    assert rebased.json()["state"] == "in_review"
    assert rebased.json()["object"]["metadata"]["labels"] == {"team": "platform"}


def test_restore_a_revision_opens_a_change(sandbox, cluster, people):
    applied = _created(people, propose=True)
    url = f"{CHANGES}{applied['id']}/"
    client_for(people["reviewer"]).post(url + "approve/")
    assert client_for(people["operator"]).post(url + "apply/").status_code == 200
    restore = "/api/v1/clusters/gamma/validating/checks/history/1/restore/"
    assert client_for(people["viewer"]).post(restore).status_code == 403
    assert (
        client_for(people["author"]).post(restore.replace("/1/", "/99/")).status_code
        == 404
    )
    response = client_for(people["author"]).post(restore)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["restores_revision"] == 1
    assert body["action"] == "update"
    assert response["Location"] == f"{CHANGES}{body['id']}/"
    assert ConfigurationRevision.objects.filter(number=2).exists()
    hooks = body["object"]["webhooks"]
    assert len(hooks) == 2  # revision 1 had two webhooks


def test_promote_opens_linked_changes(sandbox, cluster, people):
    other_sb = factories.start_sandbox("delta", copy.deepcopy(OBJECTS))
    try:
        other = factories.sandbox_cluster(other_sb)
        assert cluster_sync(cluster=other).status == "succeeded"
        ClusterMembership.objects.create(
            cluster=other, user=people["author"], role="editor"
        )
        change = _created(people, propose=True)
        url = f"{CHANGES}{change['id']}/"
        author = client_for(people["author"])
        unknown = author.post(url + "promote/", {"clusters": ["nope"]}, format="json")
        assert unknown.status_code == 400
        response = author.post(url + "promote/", {"clusters": ["delta"]}, format="json")
        assert response.status_code == 200, response.json()
        (promotion,) = response.json()["promotions"]
        assert promotion["cluster"] == "delta"
        assert promotion["change"]["state"] == "in_review"
        linked = author.get(promotion["change"]["url"]).json()
        assert linked["promoted_from"]["id"] == change["id"]
        source = author.get(url).json()
        assert [p["cluster"] for p in source["promotions"]] == ["delta"]
    finally:
        other_sb.stop()


def test_list_filters(cluster, people):
    mine = _created(people, propose=True)
    other = client_for(people["editor2"]).post(
        CHANGES,
        {
            "cluster": "gamma",
            "action": "delete",
            "kind": "validating",
            "name": "other",
            "propose": True,
        },
        format="json",
    )
    assert other.status_code == 201
    api = client_for(people["editor2"])

    def ids(query: str) -> list[int]:
        response = api.get(CHANGES + query)
        assert response.status_code == 200, response.json()
        return [c["id"] for c in response.json()["results"]]

    both = {mine["id"], other.json()["id"]}
    assert set(ids("")) == both
    assert ids("?author=author") == [mine["id"]]
    assert ids("?mine=true") == [other.json()["id"]]
    assert ids("?awaiting_my_review=true") == [mine["id"]]
    assert ids("?name=checks&kind=validating") == [mine["id"]]
    assert ids("?kind=mutating") == []
    assert set(ids("?state=in_review&cluster=gamma")) == both
    assert ids("?state=approved") == []
    assert ids("?name=check") == [mine["id"]]  # contains, as on the page
    assert ids("?tab=mine") == [other.json()["id"]]  # the page's tabs work too
    assert ids("?tab=review") == [mine["id"]]
    for bad in ["?state=bogus", "?cluster=elsewhere"]:  # unknown or hidden alike
        assert api.get(CHANGES + bad).status_code == 400


def test_unknown_change_ids_are_404(cluster, people):
    api = client_for(people["author"])
    for url in [f"{CHANGES}999/", f"{CHANGES}{2**70}/"]:
        assert api.get(url).status_code == 404
    assert api.post(f"{CHANGES}{2**70}/apply/").status_code == 404
    assert api.get(f"/api/v1/audit/?change={2**70}").status_code == 400


def _approved_url(people) -> str:
    change = _created(people, propose=True)
    url = f"{CHANGES}{change['id']}/"
    assert client_for(people["reviewer"]).post(url + "approve/").status_code == 200
    return url


def test_apply_rejected_by_the_cluster_is_502_and_failed(sandbox, cluster, people):
    url = _approved_url(people)
    sandbox.inject_fault(VWC, status=500, method="PUT", skip=1)  # after the dry run
    response = client_for(people["operator"]).post(url + "apply/")
    assert response.status_code == 502, response.json()
    error = error_of(response)
    assert error["code"] == "apply_failed"
    assert error["details"]["outcome"]["status"] == "failed"
    assert error["details"]["change"]["state"] == "failed"
    assert error["details"]["change"]["outcome"]["message"] == error["message"]
    assert [h["timeoutSeconds"] for h in _live_in_cluster(sandbox)["webhooks"]] == [
        10,
        10,
    ]  # nothing half-written
    retry = client_for(people["operator"]).post(url + "apply/")
    assert retry.status_code == 200


def test_apply_to_an_unreachable_cluster_is_503_and_stays_approved(
    sandbox, cluster, people
):
    url = _approved_url(people)
    sandbox.inject_fault(VWC, status=503, method="GET")
    response = client_for(people["operator"]).post(url + "apply/")
    assert response.status_code == 503, response.json()
    error = error_of(response)
    assert error["code"] == "not_sent"
    assert error["details"]["change"]["state"] == "approved"


def test_list_queries_stay_flat(cluster, people):
    api = client_for(people["reviewer"])

    def queries(url: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert api.get(url).status_code == 200
        return len(captured)

    first = _created(people, propose=True)
    api.post(f"{CHANGES}{first['id']}/comment/", {"body": "hm"}, format="json")
    one, one_audit = queries(CHANGES), queries("/api/v1/audit/")
    for author, body in [
        ("editor2", {"action": "delete", "name": "other"}),
        ("author", {"action": "create", "object": factories.configuration("x")}),
    ]:
        created = client_for(people[author]).post(
            CHANGES,
            {"cluster": "gamma", "kind": "validating", "propose": True, **body},
            format="json",
        )
        change_url = f"{CHANGES}{created.json()['id']}/"
        api.post(change_url + "approve/")
    assert api.get(CHANGES).json()["count"] == 3
    assert queries(CHANGES) == one
    assert queries("/api/v1/audit/") == one_audit
