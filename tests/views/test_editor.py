"""The editor (issue 6): entry points, saving as you type, dry run, permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import ChangeRequest, ClusterMembership

SHARED = "/clusters/alpha/validating/shared-checks/"
INJECTOR = "/clusters/alpha/mutating/sidecar-injector/"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def editor_client(client, role_user):
    client.force_login(role_user("editor"))
    return client


def _edit(client, url: str = SHARED) -> ChangeRequest:
    response = client.post(url + "edit/")
    assert response.status_code == 302, response.status_code
    draft = ChangeRequest.objects.get()
    assert response["Location"] == f"/drafts/{draft.pk}/"
    return draft


def test_editors_see_edit_delete_and_clone_viewers_do_not(client, role_user):
    client.force_login(role_user("viewer"))
    page = client.get(SHARED).content.decode()
    assert 'id="draft-actions"' not in page
    client.force_login(role_user("editor"))
    page = client.get(SHARED).content.decode()
    assert f'action="{SHARED}edit/"' in page and f'action="{SHARED}delete/"' in page
    assert f'action="{SHARED}clone/"' in page
    assert (
        'action="/clusters/alpha/drafts/new/mutating/"'
        in client.get("/clusters/alpha/").content.decode()
    )
    # The tab region answers htmx with the buttons too.
    assert 'id="draft-actions"' in client.get(SHARED, **HX).content.decode()


def test_viewer_cannot_start_a_draft(client, role_user):
    client.force_login(role_user("viewer"))
    assert client.post(SHARED + "edit/").status_code == 403
    assert client.post("/clusters/alpha/drafts/new/mutating/").status_code == 403
    assert not ChangeRequest.objects.exists()


def test_anonymous_is_sent_to_sign_in(client, clusters):
    for response in (client.post(SHARED + "edit/"), client.get("/drafts/")):
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")


def test_someone_elses_draft_is_404(editor_client, clusters):
    draft = _edit(editor_client)
    other = User.objects.create_user("other-editor")
    ClusterMembership.objects.create(cluster=clusters[0], user=other, role="editor")
    intruder = Client()
    intruder.force_login(other)
    assert intruder.get(f"/drafts/{draft.pk}/").status_code == 404
    url = f"/drafts/{draft.pk}/validate/"
    assert intruder.post(url, {"text": "x: 1"}).status_code == 404
    assert intruder.post(f"/drafts/{draft.pk}/dry-run/").status_code == 404
    assert intruder.post(f"/drafts/{draft.pk}/discard/").status_code == 404
    assert "x: 1" not in ChangeRequest.objects.get().proposed_text
    assert f"/drafts/{draft.pk}/" not in intruder.get("/drafts/").content.decode()


def test_editor_page_shows_the_yaml_and_the_typing_trigger(editor_client, clusters):
    draft = _edit(editor_client)
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert 'name="text"' in page and "shared-checks" in page
    assert 'hx-trigger="keyup changed delay:400ms, change"' in page
    assert f'action="/drafts/{draft.pk}/validate/"' in page  # works without JS
    assert "resourceVersion:" not in page.split('id="draft-text"')[1].split("</")[0]
    assert 'id="no-errors"' in page and 'id="semantic-diff-empty"' in page


def test_edit_resumes_the_open_draft(editor_client, clusters):
    draft = _edit(editor_client)
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": "half: ["})
    assert editor_client.post(SHARED + "edit/")["Location"] == f"/drafts/{draft.pk}/"
    assert ChangeRequest.objects.get().proposed_text == "half: ["
    listing = editor_client.get("/drafts/").content.decode()
    assert f'href="/drafts/{draft.pk}/"' in listing


def test_typing_saves_and_answers_with_errors_at_apiserver_paths(
    editor_client, clusters
):
    draft = _edit(editor_client)
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][1]["failurePolicy"] = "Sometimes"
    text = dump_yaml(obj)
    response = editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": text}, **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="feedback"')  # the partial only
    assert 'data-field="webhooks[1].failurePolicy"' in body
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines, 1) if "failurePolicy: Sometimes" in t)
    assert f"line {line}" in body
    assert ChangeRequest.objects.get().proposed_text == text


def test_yaml_that_does_not_parse_is_kept_and_reported_with_its_line(
    editor_client, clusters
):
    draft = _edit(editor_client)
    text = "apiVersion: v1\nmetadata: {name: [\n"
    body = editor_client.post(
        f"/drafts/{draft.pk}/validate/", {"text": text}, **HX
    ).content.decode()
    assert 'data-reason="ParseError"' in body and "line " in body
    assert "The diff appears once the YAML parses" in body
    assert ChangeRequest.objects.get().proposed_text == text
    # Coming back shows the text exactly as typed.
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert "metadata: {name: [" in page


def test_preview_shows_semantic_and_yaml_diff_and_risk_delta(editor_client, clusters):
    draft = _edit(editor_client)
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][0]["rules"][0].update(
        apiGroups=["*"], apiVersions=["*"], resources=["*"]
    )
    body = editor_client.post(
        f"/drafts/{draft.pk}/validate/", {"text": dump_yaml(obj)}, **HX
    ).content.decode()
    assert 'id="semantic-diff"' in body
    assert 'class="diff-line diff-added"' in body
    assert 'id="risks-added"' in body


def test_dry_run_accepted(editor_client, clusters):
    draft = _edit(editor_client)
    text = draft.proposed_text.replace("timeoutSeconds: 10", "timeoutSeconds: 7")
    response = editor_client.post(f"/drafts/{draft.pk}/dry-run/", {"text": text}, **HX)
    assert 'data-dry-run="ok"' in response.content.decode()
    saved = ChangeRequest.objects.get()
    assert saved.proposed_text == text and saved.dry_run_result["ok"] is True


def test_dry_run_rejected_maps_causes_to_fields(editor_client, clusters):
    draft = _edit(editor_client)
    text = draft.proposed_text.replace("sideEffects: None", "sideEffects: Often", 1)
    body = editor_client.post(
        f"/drafts/{draft.pk}/dry-run/", {"text": text}, **HX
    ).content.decode()
    assert 'data-dry-run="failed"' in body
    assert 'id="dry-run-errors"' in body
    assert (
        'data-field="webhooks[0].sideEffects"' in body.split('id="dry-run-errors"')[1]
    )
    assert ChangeRequest.objects.get().proposed_text == text


def test_dry_run_failure_is_plain_and_keeps_the_draft(
    editor_client, clusters, sandboxes
):
    draft = _edit(editor_client)
    text = draft.proposed_text + "# careful\n"
    sandboxes[0].inject_fault("/apis/admissionregistration.k8s.io", status=403)
    try:
        response = editor_client.post(f"/drafts/{draft.pk}/dry-run/", {"text": text})
    finally:
        sandboxes[0].clear_faults()
    body = response.content.decode()
    assert response.status_code == 200
    assert 'data-dry-run="failed"' in body and "forbidden" in body
    assert ChangeRequest.objects.get().proposed_text == text


def test_ownership_warning_before_editing(editor_client, clusters):
    draft = _edit(editor_client, INJECTOR)
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert 'data-owner="ca-injector"' in page
    assert "writes the caBundle itself" in page


def test_delete_draft_previews_what_goes_away(editor_client, clusters):
    response = editor_client.post(SHARED + "delete/")
    draft = ChangeRequest.objects.get()
    assert draft.action == "delete" and response["Location"] == f"/drafts/{draft.pk}/"
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert 'data-action="delete"' in page and 'name="text"' not in page
    assert "diff-removed" in page and 'id="semantic-diff"' in page
    body = editor_client.post(f"/drafts/{draft.pk}/dry-run/", **HX).content.decode()
    assert 'data-dry-run="ok"' in body


def test_new_configuration_from_the_cluster_page(editor_client, clusters):
    response = editor_client.post("/clusters/alpha/drafts/new/validating/")
    draft = ChangeRequest.objects.get()
    assert (draft.action, draft.kind, draft.base_object) == (
        "create",
        "ValidatingWebhookConfiguration",
        None,
    )
    assert response["Location"] == f"/drafts/{draft.pk}/"
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert "What will be created" in page


def test_clone_needs_editor_on_the_target(editor_client, clusters):
    response = editor_client.post(SHARED + "clone/", {"target": "beta"})
    assert response.status_code == 404  # beta is not visible to this editor
    assert not ChangeRequest.objects.exists()


def test_clone_to_another_cluster(admin_client, clusters):
    response = admin_client.post(
        INJECTOR + "clone/", {"target": "beta", "name": "sidecar-copy"}
    )
    draft = ChangeRequest.objects.get()
    assert (draft.cluster.name, draft.action, draft.name) == (
        "beta",
        "create",
        "sidecar-copy",
    )
    assert response["Location"] == f"/drafts/{draft.pk}/"
    body = admin_client.post(f"/drafts/{draft.pk}/dry-run/", **HX).content.decode()
    assert 'data-dry-run="ok"' in body


def test_discard(editor_client, clusters):
    draft = _edit(editor_client)
    response = editor_client.post(f"/drafts/{draft.pk}/discard/")
    assert response["Location"] == "/drafts/"
    assert not ChangeRequest.objects.exists()


def test_preview_says_what_the_change_does_to_coverage(editor_client, clusters):
    draft = _edit(editor_client)
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert 'id="coverage-same"' in page
    obj = load_documents(draft.proposed_text)[0]
    obj["webhooks"][0]["rules"][0]["operations"] = ["CREATE", "UPDATE", "DELETE"]
    body = editor_client.post(
        f"/drafts/{draft.pk}/validate/", {"text": dump_yaml(obj)}, **HX
    ).content.decode()
    gained = body.split('data-coverage="gained"')[1].split("</ul>")[0]
    assert "pods (core/v1)" in gained and "DELETE" in gained


def test_delete_preview_loses_all_coverage(editor_client, clusters):
    editor_client.post(SHARED + "delete/")
    draft = ChangeRequest.objects.get()
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    assert 'data-coverage="lost"' in page and "pods (core/v1)" in page


def test_my_drafts_query_count_stays_flat(
    editor_client, clusters, django_assert_max_num_queries
):
    _edit(editor_client)
    editor_client.post(SHARED + "delete/")
    editor_client.post("/clusters/alpha/drafts/new/mutating/")
    with django_assert_max_num_queries(8):
        page = editor_client.get("/drafts/").content.decode()
    assert page.count('data-draft="') == 3


def test_text_starting_with_a_newline_survives_the_round_trip(editor_client, clusters):
    draft = _edit(editor_client)
    text = "\n\nkind: x\n"
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": text})
    page = editor_client.get(f"/drafts/{draft.pk}/").content.decode()
    textarea = page.split('id="draft-text"')[1].split(">", 1)[1].split("</textarea>")[0]
    # HTML drops one newline right after <textarea>: the template adds it.
    assert textarea == "\n" + text
