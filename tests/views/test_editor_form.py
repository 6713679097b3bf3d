"""The editor's Form tab over HTTP: showing a draft field by field, saving what
is typed (merged losslessly onto the YAML), errors on their fields, buttons."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from webhooks_ui.domain import form_model
from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import ChangeRequest, ClusterMembership
from webhooks_ui.services.drafts import text_hash

SHARED = "/clusters/alpha/validating/shared-checks/"
INJECTOR = "/clusters/alpha/mutating/sidecar-injector/"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def editor_client(client, role_user):
    client.force_login(role_user("editor"))
    return client


def _edit(client, url: str = SHARED) -> ChangeRequest:
    assert client.post(url + "edit/").status_code == 302
    return ChangeRequest.objects.get()


def _posted(draft: ChangeRequest) -> dict:
    """What the browser posts for the draft as it is now (every field)."""
    obj = load_documents(draft.proposed_text)[0]
    flat = form_model.flatten(form_model.object_to_form(obj, kind=obj["kind"]))
    return dict(flat)


def _save(client, draft, data, **extra):
    return client.post(f"/drafts/{draft.pk}/form/", data, **extra)


def _saved_object() -> dict:
    return load_documents(ChangeRequest.objects.get().proposed_text)[0]


def test_form_tab_shows_every_field_with_defaults_as_placeholders(
    editor_client, clusters
):
    draft = _edit(editor_client, INJECTOR)
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert 'id="draft-fields"' in page and 'name="text"' not in page
    assert 'id="tab-form" aria-current="page"' in page
    assert 'name="w-0-name"' in page and 'value="w0.sidecar-injector.example.com"'
    for name in (
        "name",
        "w-0-target",
        "w-0-service_namespace",
        "w-0-service_name",
        "w-0-service_path",
        "w-0-service_port",
        "w-0-url",
        "w-0-ca_bundle",
        "w-0-r-0-operations",
        "w-0-r-0-api_groups",
        "w-0-r-0-api_versions",
        "w-0-r-0-resources",
        "w-0-r-0-scope",
        "w-0-failure_policy",
        "w-0-match_policy",
        "w-0-side_effects",
        "w-0-timeout_seconds",
        "w-0-admission_review_versions",
        "w-0-reinvocation_policy",
    ):
        assert f'name="{name}"' in page, name
    # Enumerations: exactly the allowed values and an empty "(default: X)".
    select = page.split('name="w-0-match_policy"')[1].split("</select>")[0]
    options = re.findall(r'<option value="([^"]*)"', select)
    assert options == ["", "Equivalent", "Exact"]
    assert "(default: Equivalent)" in select
    reinvocation = page.split('name="w-0-reinvocation_policy"')[1].split("</select>")
    assert "(default: Never)" in reinvocation[0]
    assert 'placeholder="443 (default)"' in page


def test_validating_drafts_have_no_reinvocation_policy(editor_client, clusters):
    draft = _edit(editor_client)
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert 'name="w-0-name"' in page and 'name="w-1-name"' in page
    assert "reinvocation_policy" not in page


def test_typing_saves_yaml_and_keeps_what_the_form_does_not_know(
    editor_client, clusters
):
    draft = _edit(editor_client)
    obj = load_documents(draft.proposed_text)[0]
    obj["metadata"]["annotations"] = {"example.com/owner": "team-a"}
    obj["webhooks"][0]["futureField"] = {"x": 1}
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": dump_yaml(obj)})
    draft.refresh_from_db()
    data = _posted(draft)
    data["w-0-timeout_seconds"] = "7"
    response = _save(editor_client, draft, data, **HX)
    assert response.status_code == 200
    saved = _saved_object()
    assert saved["webhooks"][0]["timeoutSeconds"] == 7
    assert saved["webhooks"][0]["futureField"] == {"x": 1}
    assert saved["metadata"]["annotations"] == {"example.com/owner": "team-a"}
    obj["webhooks"][0]["timeoutSeconds"] = 7
    assert saved == obj


def test_an_unchanged_form_keeps_the_text_exactly(editor_client, clusters):
    draft = _edit(editor_client)
    text = draft.proposed_text + "# a comment the form cannot show\n"
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": text})
    draft.refresh_from_db()
    _save(editor_client, draft, _posted(draft), **HX)
    assert ChangeRequest.objects.get().proposed_text == text


def test_invalid_timeout_is_shown_under_the_field_and_kept(editor_client, clusters):
    draft = _edit(editor_client)
    data = _posted(draft)
    data["w-0-timeout_seconds"] = "31"
    body = _save(editor_client, draft, data, **HX).content.decode()
    # Only the regions around the inputs: feedback, summary, field errors.
    assert '<div id="feedback" aria-live="polite">' in body
    assert re.search(r'id="draft-heading"[^>]* hx-swap-oob="true"', body)
    assert 'name="w-0-timeout_seconds"' not in body
    slot = body.split('id="fe-w-0-timeout_seconds" hx-swap-oob="true">')[1]
    assert slot.startswith("<div>Invalid value: 31: the timeout value must be between")
    assert 'href="#fe-w-0-timeout_seconds"' in body  # summary links to it
    # A value that is no number at all is kept as typed and reported.
    data["w-0-timeout_seconds"] = "abc"
    body = _save(editor_client, draft, data, **HX).content.decode()
    slot = body.split('id="fe-w-0-timeout_seconds" hx-swap-oob="true">')[1]
    assert "must be an integer" in slot.split("</div></div>")[0]
    assert _saved_object()["webhooks"][0]["timeoutSeconds"] == "abc"
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert re.search(r'name="w-0-timeout_seconds" value="abc"', page)


def test_buttons_add_move_and_remove_rows(editor_client, clusters):
    draft = _edit(editor_client)
    names = [hook["name"] for hook in _saved_object()["webhooks"]]
    data = _posted(draft)
    body = _save(editor_client, draft, {**data, "op": "add:w-0-r"}, **HX)
    body = body.content.decode()
    assert body.lstrip().startswith('<div id="form-region">')
    assert 'name="w-0-r-1-operations"' in body
    assert 'id="feedback" aria-live="polite" hx-swap-oob="true"' in body
    assert _saved_object()["webhooks"][0]["rules"][1] == {}

    draft.refresh_from_db()
    data = _posted(draft)
    _save(editor_client, draft, {**data, "op": "down:w-0"}, **HX)
    saved = _saved_object()
    assert [hook["name"] for hook in saved["webhooks"]] == names[::-1]
    assert saved["webhooks"][1]["rules"][1] == {}  # moved with its webhook

    draft.refresh_from_db()
    _save(editor_client, draft, {**_posted(draft), "op": "add:w-1-ns-me"}, **HX)
    assert _saved_object()["webhooks"][1]["namespaceSelector"] == {
        "matchExpressions": [{}]
    }
    draft.refresh_from_db()
    _save(editor_client, draft, {**_posted(draft), "op": "remove:w-0"}, **HX)
    assert [hook["name"] for hook in _saved_object()["webhooks"]] == [names[0]]


def test_an_added_label_row_shows_until_filled(editor_client, clusters):
    draft = _edit(editor_client)
    body = _save(
        editor_client, draft, {**_posted(draft), "op": "add:labels"}, **HX
    ).content.decode()
    assert 'name="labels-0-key"' in body
    assert "labels" not in _saved_object()["metadata"]
    draft.refresh_from_db()
    data = {**_posted(draft), "labels-0-key": "team", "labels-0-value": "a"}
    _save(editor_client, draft, data, **HX)
    assert _saved_object()["metadata"]["labels"] == {"team": "a"}


def test_without_javascript_the_form_posts_and_renders_the_page(
    editor_client, clusters
):
    draft = _edit(editor_client)
    data = {**_posted(draft), "w-1-failure_policy": "Ignore", "op": "add:w-1-mc"}
    response = _save(editor_client, draft, data)
    page = response.content.decode()
    assert response.status_code == 200 and "<html" in page
    assert 'name="w-1-mc-0-expression"' in page
    saved = _saved_object()["webhooks"][1]
    assert saved["failurePolicy"] == "Ignore" and saved["matchConditions"] == [{}]
    assert 'data-field="webhooks[1].matchConditions[0].name"' in page


def test_cel_compile_errors_show_under_the_expression(editor_client, clusters):
    draft = _edit(editor_client)
    data = {
        **_posted(draft),
        "op": "add:w-0-mc",
    }
    _save(editor_client, draft, data, **HX)
    draft.refresh_from_db()
    data = {
        **_posted(draft),
        "w-0-mc-0-name": "not-system",
        "w-0-mc-0-expression": "request.namespace ==",
    }
    body = _save(editor_client, draft, data, **HX).content.decode()
    slot = body.split('id="fe-w-0-mc-0-expression" hx-swap-oob="true">')[1]
    assert slot.startswith("<div>Invalid value:")
    assert "compil" in slot.split("</div></div>")[0].lower()
    data["w-0-mc-0-expression"] = "request.namespace != 'kube-system'"
    body = _save(editor_client, draft, data, **HX).content.decode()
    assert 'id="fe-w-0-mc-0-expression" hx-swap-oob="true"></div>' in body


def test_yaml_that_does_not_parse_offers_yaml_mode_only(editor_client, clusters):
    draft = _edit(editor_client)
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": "a: [\n"})
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert 'id="form-unavailable"' in page and "does not parse" in page
    assert 'id="draft-fields"' not in page
    response = _save(editor_client, draft, {"name": "x"}, **HX)
    assert 'id="form-unavailable"' in response.content.decode()
    assert response["HX-Retarget"] == "#editor-pane"
    assert ChangeRequest.objects.get().proposed_text == "a: [\n"


def test_tabs_switch_over_htmx_with_real_links(editor_client, clusters):
    draft = _edit(editor_client)
    url = f"/drafts/{draft.pk}/"
    body = editor_client.get(
        url + "?mode=form", HTTP_HX_TARGET="editor-pane", **HX
    ).content.decode()
    assert body.lstrip().startswith('<div id="editor-pane"')
    assert 'id="draft-fields"' in body
    assert f'href="{url}?mode=yaml"' in body
    body = editor_client.get(
        url + "?mode=yaml", HTTP_HX_TARGET="editor-pane", **HX
    ).content.decode()
    assert 'id="draft-text"' in body


def test_delete_drafts_have_no_form(editor_client, clusters):
    editor_client.post(SHARED + "delete/")
    draft = ChangeRequest.objects.get()
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert 'id="draft-fields"' not in page and 'id="tab-form"' not in page
    response = _save(editor_client, draft, {"name": "x"})
    assert response.status_code == 200
    assert ChangeRequest.objects.get().proposed_text == ""


def test_only_the_author_with_the_editor_role_can_post(
    editor_client, clusters, role_user
):
    draft = _edit(editor_client)
    data = {**_posted(draft), "w-0-timeout_seconds": "3"}
    other = User.objects.create_user("other-editor")
    ClusterMembership.objects.create(cluster=clusters[0], user=other, role="editor")
    intruder = Client()
    intruder.force_login(other)
    assert _save(intruder, draft, data).status_code == 404
    # The author who lost the editor role can no longer save.
    author = draft.author
    ClusterMembership.objects.filter(user=author).update(role="viewer")
    assert _save(editor_client, draft, data).status_code in (403, 404)
    assert Client().post(f"/drafts/{draft.pk}/form/", data).status_code == 302
    assert "timeoutSeconds: 3" not in ChangeRequest.objects.get().proposed_text


def test_csrf_is_enforced(role_user, clusters):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(role_user("editor"))
    page = browser.get(SHARED)
    assert page.status_code == 200
    token = browser.cookies["csrftoken"].value
    assert browser.post(SHARED + "edit/", {"csrfmiddlewaretoken": token}).status_code
    draft = ChangeRequest.objects.get()
    data = {**_posted(draft), "w-0-timeout_seconds": "3"}
    assert _save(browser, draft, data).status_code == 403
    assert _save(browser, draft, {**data, "csrfmiddlewaretoken": token}).status_code
    assert _saved_object()["webhooks"][0]["timeoutSeconds"] == 3


def test_dry_run_from_the_form_puts_the_apiservers_causes_under_fields(
    editor_client, clusters
):
    draft = _edit(editor_client)
    data = {**_posted(draft), "w-0-side_effects": "Some"}
    _save(editor_client, draft, data, **HX)
    body = editor_client.post(
        f"/drafts/{draft.pk}/dry-run/", {**data, "mode": "form"}, **HX
    ).content.decode()
    assert 'data-dry-run="failed"' in body
    slot = body.split('id="fe-w-0-side_effects" hx-swap-oob="true">')[1]
    assert "Unsupported value" in slot.split("</div></div>")[0]
    assert 'name="w-0-side_effects"' not in body  # the inputs stay as they are


def test_an_added_row_gets_the_focus(editor_client, clusters):
    draft = _edit(editor_client)
    body = _save(
        editor_client, draft, {**_posted(draft), "op": "add:w"}, **HX
    ).content.decode()
    assert re.search(r'<input[^>]*name="w-2-name"[^>]*autofocus', body)
    assert body.count("autofocus") == 1
    # The heading and breadcrumb follow a new name (a create draft).
    response = editor_client.post("/clusters/alpha/drafts/new/validating/")
    new = ChangeRequest.objects.get(action="create")
    assert response["Location"] == f"/drafts/{new.pk}/"
    body = _save(
        editor_client, new, {**_posted(new), "name": "renamed-checks"}, **HX
    ).content.decode()
    assert 'id="draft-crumb" hx-swap-oob="true">renamed-checks</li>' in body
    assert ChangeRequest.objects.get(pk=new.pk).name == "renamed-checks"


def test_yaml_comments_are_announced_before_the_form_drops_them(
    editor_client, clusters
):
    draft = _edit(editor_client)
    text = "# managed by hand\n" + draft.proposed_text
    editor_client.post(f"/drafts/{draft.pk}/validate/", {"text": text})
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    assert 'id="form-comments"' in page
    draft.refresh_from_db()
    _save(editor_client, draft, _posted(draft), **HX)
    assert ChangeRequest.objects.get().proposed_text == text  # nothing changed
    _save(editor_client, draft, {**_posted(draft), "w-0-timeout_seconds": "9"}, **HX)
    assert "# managed by hand" not in ChangeRequest.objects.get().proposed_text


def test_causes_only_the_apiserver_reported_land_on_their_fields(
    editor_client, clusters
):
    draft = _edit(editor_client)
    cause = {
        "field": "webhooks[1].clientConfig.service.name",
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "checker": admission webhook denied it',
        "line": None,
    }
    draft.dry_run_result = {
        "ok": False,
        "errors": [cause],
        "message": "rejected",
        "at": "2026-11-22T08:00:00+00:00",
        "text_sha256": text_hash(draft.proposed_text),
    }
    draft.save()
    page = editor_client.get(f"/drafts/{draft.pk}/?mode=form").content.decode()
    slot = page.split('id="fe-w-1-service_name">')[1].split("</div></div>")[0]
    assert "API server (dry run): Invalid value" in slot
    # Once the text changes, that verdict is about another text: not shown.
    data = {**_posted(draft), "w-0-timeout_seconds": "6"}
    body = _save(editor_client, draft, data, **HX).content.decode()
    assert 'id="fe-w-1-service_name" hx-swap-oob="true"></div>' in body
