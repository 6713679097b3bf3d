"""The change request page over HTTP: propose, review, apply, rebase, restore."""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests import factories
from tests.views.conftest import ALPHA_OBJECTS, BETA_OBJECTS, PASSWORD
from webhooks_ui.domain.kinds import API_VERSION_V1, VALIDATING
from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import AuditEvent, ChangeRequest, ClusterMembership

DRIFTING = "/clusters/alpha/validating/drifting/"


@pytest.fixture
def sandboxes():
    # Per test: these tests write to the clusters.
    alpha = factories.start_sandbox("alpha", copy.deepcopy(ALPHA_OBJECTS))
    beta = factories.start_sandbox("beta", copy.deepcopy(BETA_OBJECTS))
    yield alpha, beta
    alpha.stop()
    beta.stop()


@pytest.fixture
def team(clusters):
    alpha, beta = clusters

    def member(name: str, *roles: str, cluster=alpha) -> User:
        user = User.objects.filter(username=name).first() or User.objects.create_user(
            name, password=PASSWORD
        )
        for role in roles:
            ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
        return user

    people = {
        "author": member("ada", "editor"),
        "reviewer": member("rui", "approver"),
        "operator": member("ola", "operator"),
        "viewer": member("vic", "viewer"),
    }
    member("ada", "editor", cluster=beta)
    return people


def _as(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _draft(author: User, timeout: int = 7) -> ChangeRequest:
    client = _as(author)
    response = client.post(DRIFTING + "edit/")
    assert response.status_code == 302
    draft = ChangeRequest.objects.get(author=author, state="draft")
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][0]["timeoutSeconds"] = timeout
    client.post(f"/drafts/{draft.pk}/validate/", {"text": dump_yaml(obj)})
    return draft


def _propose(author: User, draft: ChangeRequest, title="Faster timeout", client=None):
    return (client or _as(author)).post(
        f"/changes/{draft.pk}/propose/",
        {"title": title, "description": "Because <b>latency</b>."},
    )


def test_editor_shows_the_propose_panel_and_proposing_opens_the_review(team):
    draft = _draft(team["author"])
    page = _as(team["author"]).get(f"/drafts/{draft.pk}/").content.decode()
    assert 'id="propose-form"' in page
    response = _propose(team["author"], draft)
    assert response.status_code == 302
    assert response["Location"] == f"/changes/{draft.pk}/"
    draft.refresh_from_db()
    assert draft.state == "in_review"
    page = _as(team["reviewer"]).get(f"/changes/{draft.pk}/").content.decode()
    assert "Faster timeout" in page
    # The author's description is escaped, never rendered as HTML.
    assert "&lt;b&gt;latency&lt;/b&gt;" in page and "<b>latency</b>" not in page
    assert 'id="approve"' in page
    assert 'data-path="webhooks[0].timeoutSeconds"' in page or "timeoutSeconds" in page
    assert 'data-dry-run="ok"' in page


def test_an_invalid_draft_cannot_be_proposed(team):
    draft = _draft(team["author"], timeout=31)
    client = _as(team["author"])
    response = _propose(team["author"], draft, client=client)
    assert response.status_code == 302
    assert response["Location"] == f"/drafts/{draft.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "validation error" in page
    draft.refresh_from_db()
    assert draft.state == "draft"


def test_the_author_sees_no_approve_button_and_cannot_post_one(team):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    author = _as(team["author"])
    page = author.get(f"/changes/{draft.pk}/").content.decode()
    assert 'id="approve"' not in page and 'id="self-review"' in page
    response = author.post(f"/changes/{draft.pk}/review/", {"verdict": "approve"})
    assert response.status_code == 403
    draft.refresh_from_db()
    assert draft.state == "in_review"


def test_drafts_are_private_and_invisible_clusters_are_404(team, nobody):
    draft = _draft(team["author"])
    assert _as(team["reviewer"]).get(f"/changes/{draft.pk}/").status_code == 404
    _propose(team["author"], draft)
    assert _as(nobody).get(f"/changes/{draft.pk}/").status_code == 404
    assert _as(nobody).post(f"/changes/{draft.pk}/apply/").status_code == 404
    assert _as(team["viewer"]).get(f"/changes/{draft.pk}/").status_code == 200
    anonymous = Client().get(f"/changes/{draft.pk}/")
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]


def test_review_then_apply_shows_the_new_revision(team, sandboxes):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    reviewer = _as(team["reviewer"])
    reviewer.post(
        f"/changes/{draft.pk}/review/", {"verdict": "approve", "body": "LGTM"}
    )
    operator = _as(team["operator"])
    page = operator.get(f"/changes/{draft.pk}/").content.decode()
    assert 'id="apply"' in page and "1 of 1" in page
    response = operator.post(f"/changes/{draft.pk}/apply/", follow=True)
    page = response.content.decode()
    assert 'data-state="applied"' in page and "revision 2" in page
    stored = sandboxes[0].store.get(API_VERSION_V1, VALIDATING, "drifting")
    assert stored["webhooks"][0]["timeoutSeconds"] == 7
    history = operator.get(DRIFTING + "history/").content.decode()
    assert 'data-revision="2"' in history
    timeline = [e.action for e in AuditEvent.objects.filter(change_id=draft.pk)]
    assert set(timeline) >= {"change.proposed", "change.approved", "change.applied"}


def test_viewer_cannot_act_on_a_change(team):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    viewer = _as(team["viewer"])
    page = viewer.get(f"/changes/{draft.pk}/").content.decode()
    assert 'id="approve"' not in page and 'id="apply"' not in page
    assert (
        viewer.post(f"/changes/{draft.pk}/review/", {"verdict": "approve"}).status_code
        == 403
    )
    assert viewer.post(f"/changes/{draft.pk}/apply/").status_code == 403
    # Comments are open to anyone who can see the cluster.
    viewer.post(f"/changes/{draft.pk}/review/", {"verdict": "comment", "body": "ok?"})
    assert "ok?" in viewer.get(f"/changes/{draft.pk}/").content.decode()


def test_stale_change_shows_the_three_way_view_and_rebases(team, sandboxes):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    _as(team["reviewer"]).post(f"/changes/{draft.pk}/review/", {"verdict": "approve"})
    obj = sandboxes[0].store.get(API_VERSION_V1, VALIDATING, "drifting")
    obj["metadata"]["labels"] = {"changed": "out-of-band"}
    sandboxes[0].store.replace(obj)
    _as(team["operator"]).post(f"/changes/{draft.pk}/apply/")
    draft.refresh_from_db()
    assert draft.state == "stale"
    page = _as(team["author"]).get(f"/changes/{draft.pk}/").content.decode()
    assert 'id="three-way"' in page and 'id="merge-clean"' in page
    assert "metadata.labels" in page
    response = _as(team["author"]).post(f"/changes/{draft.pk}/rebase/")
    assert response["Location"] == f"/changes/{draft.pk}/"
    draft.refresh_from_db()
    assert draft.state == "in_review"
    assert draft.proposed_object["metadata"]["labels"] == {"changed": "out-of-band"}


def test_restore_a_revision_from_history(team, admin_client):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    _as(team["reviewer"]).post(f"/changes/{draft.pk}/review/", {"verdict": "approve"})
    _as(team["operator"]).post(f"/changes/{draft.pk}/apply/")
    author = _as(team["author"])
    history = author.get(DRIFTING + "history/").content.decode()
    assert 'data-restore="1"' in history and 'data-restore="2"' not in history
    assert (
        "data-restore"
        not in _as(team["viewer"]).get(DRIFTING + "history/").content.decode()
    )
    response = author.post(DRIFTING + "history/1/restore/")
    restore = ChangeRequest.objects.get(restores_revision__number=1)
    assert response["Location"] == f"/drafts/{restore.pk}/"
    assert "timeoutSeconds: 5" in restore.proposed_text
    assert _as(team["viewer"]).post(DRIFTING + "history/1/restore/").status_code == 403


def test_promote_to_another_cluster(team, clusters):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    author = _as(team["author"])
    page = author.get(f"/changes/{draft.pk}/").content.decode()
    assert 'id="target-beta"' in page
    response = author.post(
        f"/changes/{draft.pk}/promote/", {"target": ["beta"]}, follow=True
    )
    promoted = ChangeRequest.objects.get(promoted_from=draft)
    assert promoted.cluster == clusters[1]
    assert promoted.state == "in_review"
    assert f'href="/changes/{promoted.pk}/"' in response.content.decode()


def test_withdraw_and_reopen(team):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    author = _as(team["author"])
    response = author.post(f"/changes/{draft.pk}/reopen/")
    assert response["Location"] == f"/drafts/{draft.pk}/"
    draft.refresh_from_db()
    assert draft.state == "draft"
    author.post(f"/changes/{draft.pk}/withdraw/")
    draft.refresh_from_db()
    assert draft.state == "withdrawn"


def test_actions_need_post_and_csrf(team):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    assert _as(team["operator"]).get(f"/changes/{draft.pk}/apply/").status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(team["reviewer"])
    response = strict.post(f"/changes/{draft.pk}/review/", {"verdict": "approve"})
    assert response.status_code == 403
    draft.refresh_from_db()
    assert draft.state == "in_review"


def test_the_editor_of_a_proposed_change_sends_you_to_its_page(team):
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    author = _as(team["author"])
    response = author.get(f"/drafts/{draft.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/changes/{draft.pk}/"
    saved = author.post(f"/drafts/{draft.pk}/validate/", {"text": "x: 1"})
    assert saved.status_code == 302
    draft.refresh_from_db()
    assert "x: 1" not in draft.proposed_text  # the proposal is not edited
    htmx = author.post(
        f"/drafts/{draft.pk}/validate/", {"text": "x: 1"}, HTTP_HX_REQUEST="true"
    )
    assert htmx["HX-Redirect"] == f"/changes/{draft.pk}/"
    page = author.get(f"/changes/{draft.pk}/").content.decode()
    assert "no longer a draft" in page


def test_a_renamed_create_draft_follows_in_its_title(team):
    author = _as(team["author"])
    author.post("/clusters/alpha/drafts/new/validating/")
    draft = ChangeRequest.objects.get(action="create")
    text = draft.proposed_text.replace("new-webhook-configuration", "team-guard")
    reply = author.post(
        f"/drafts/{draft.pk}/validate/", {"text": text}, HTTP_HX_REQUEST="true"
    ).content.decode()
    draft.refresh_from_db()
    assert (draft.name, draft.title) == ("team-guard", "Create team-guard")
    # The YAML tab's reply renames the heading (with the suggested title the
    # page's propose form follows) and the breadcrumb.
    heading = reply.split('id="draft-heading"')[1].split(">")[0]
    assert 'data-title="Create team-guard"' in heading
    assert 'hx-swap-oob="true"' in heading
    assert 'id="draft-crumb" hx-swap-oob="true">team-guard<' in reply


@pytest.mark.parametrize(
    "url",
    [
        "/changes/99999999999999999999/",
        "/drafts/99999999999999999999/",
        "/clusters/alpha/validating/drifting/history/99999999999999999999/restore/",
    ],
)
def test_ids_too_big_for_the_database_are_404_not_500(team, url):
    client = _as(team["author"])
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404


def test_an_audit_filter_too_big_for_the_database_is_a_form_error(team):
    response = _as(team["author"]).get("/audit/?change=99999999999999999999")
    assert response.status_code in (200, 400)


def test_the_configuration_page_lists_its_open_change_requests(team):
    draft = _draft(team["author"])
    viewer = _as(team["viewer"])
    assert 'id="open-changes"' not in viewer.get(DRIFTING).content.decode()
    _propose(team["author"], draft)
    for url in (DRIFTING, DRIFTING + "history/", DRIFTING + "yaml/"):
        page = viewer.get(url).content.decode()
        assert f'data-change="{draft.pk}"' in page, url


def test_the_review_page_gives_the_change_window_with_its_time_zone(team, clusters):
    alpha = clusters[0]
    alpha.change_window = "Mon-Fri 09:00-17:00 Asia/Tokyo"
    alpha.save()
    draft = _draft(team["author"])
    _propose(team["author"], draft)
    page = _as(team["reviewer"]).get(f"/changes/{draft.pk}/").content.decode()
    assert "changes are applied Mon-Fri 09:00-17:00 Asia/Tokyo." in page
    alpha.change_window = "daily 22:00-02:00"
    alpha.save()
    page = _as(team["reviewer"]).get(f"/changes/{draft.pk}/").content.decode()
    assert "changes are applied daily 22:00-02:00 UTC." in page
