"""The editor's Form tab in a real browser: edit a field to an invalid value
and back, add a rule and a matchExpression, switch to YAML and back, dry-run,
reload; create a configuration from scratch; clone one to another cluster."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tests.browser.conftest import PASSWORD, Account
from tests.browser.test_review_journey import GUARD, GUARD_URL, sign_in
from webhooks_ui.domain.manifest import load_documents
from webhooks_ui.models import ChangeRequest, ClusterMembership

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser


@pytest.fixture
def editor(clusters) -> Account:
    user = get_user_model().objects.create_user("fern", password=PASSWORD)
    for name in ("prod", "staging"):
        ClusterMembership.objects.create(
            cluster=clusters[name], user=user, role=ClusterMembership.Role.EDITOR
        )
    return Account("fern", PASSWORD)


def _field(page, name: str):
    return page.locator(f'[name="{name}"]')


def _error(page, key: str):
    return page.locator(f"#fe-{key}")


def _button(page, op: str):
    return page.locator(f'button[data-op="{op}"]')


def _saved() -> dict:
    return load_documents(ChangeRequest.objects.get().proposed_text)[0]


def test_edit_with_the_form(page, editor, shot):
    page.goto(GUARD_URL)
    sign_in(page, editor)
    page.get_by_role("button", name="Edit", exact=True).click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/$"))
    original = ChangeRequest.objects.get().proposed_text
    page.get_by_role("link", name="Form", exact=True).click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/\?mode=form$"))
    expect(_field(page, "w-0-name")).to_have_value("guard.platform.example.io")
    expect(page.locator("#form-valid")).to_be_visible()
    expect(page.locator("#ca-w-0")).to_contain_text("platform-guard-ca")
    shot(page, "form-tab")

    # An invalid timeout: the apiserver's words under the field, as you type.
    timeout = _field(page, "w-0-timeout_seconds")
    timeout.fill("31")
    expect(_error(page, "w-0-timeout_seconds")).to_contain_text(
        "must be between 1 and 30 seconds"
    )
    expect(page.locator("#form-summary")).to_contain_text("1 problem")
    expect(timeout).to_be_focused()  # typing was not interrupted
    expect(timeout).to_have_value("31")
    shot(page, "timeout-invalid")
    timeout.fill("7")
    timeout.press("Enter")  # submits the form as a plain save, never a button's op
    expect(_error(page, "w-0-timeout_seconds")).to_be_empty()
    expect(page.locator("#form-valid")).to_be_visible()
    expect(page.locator("#yaml-diff .diff-added")).to_contain_text("timeoutSeconds: 7")

    # Add a rule to the second webhook and fill it in.
    _button(page, "add:w-1-r").click()
    expect(_field(page, "w-1-r-1-resources")).to_be_visible()
    expect(page.locator("#f-w-1-r-1-operations_0")).to_be_focused()
    expect(_error(page, "w-1-r-1-operations")).to_contain_text("Required value")
    page.locator("#f-w-1-r-1-operations_0").check()  # CREATE
    _field(page, "w-1-r-1-api_groups").fill("networking.k8s.io")
    _field(page, "w-1-r-1-api_versions").fill("v1")
    _field(page, "w-1-r-1-resources").fill("ingresses")
    expect(page.locator("#form-valid")).to_be_visible()

    # And a matchExpression to its namespaceSelector.
    _button(page, "add:w-1-ns-me").click()
    _field(page, "w-1-ns-me-1-key").fill("team")
    _field(page, "w-1-ns-me-1-operator").select_option("In")
    expect(_error(page, "w-1-ns-me-1-values")).to_contain_text("must be specified")
    _field(page, "w-1-ns-me-1-values").fill("payments, search")
    expect(page.locator("#form-valid")).to_be_visible()
    expect(page.locator("#yaml-diff")).to_contain_text("ingresses")
    expect(page.locator("#yaml-diff")).to_contain_text("payments")
    shot(page, "rule-and-expression-added")

    assert len(_saved()["metadata"]["labels"]) == 2  # Enter removed no label row
    hook = _saved()["webhooks"][1]
    assert hook["rules"][1] == {
        "operations": ["CREATE"],
        "apiGroups": ["networking.k8s.io"],
        "apiVersions": ["v1"],
        "resources": ["ingresses"],
    }
    assert hook["namespaceSelector"]["matchExpressions"][1] == {
        "key": "team",
        "operator": "In",
        "values": ["payments", "search"],
    }

    # YAML and back: nothing lost, the YAML changed only where the form did.
    page.get_by_role("link", name="YAML", exact=True).click()
    text = page.locator("#draft-text")
    expect(text).to_contain_text("timeoutSeconds: 7")
    expect(text).to_contain_text("ingresses")
    saved = ChangeRequest.objects.get().proposed_text
    assert saved.replace("timeoutSeconds: 7", "timeoutSeconds: 5", 1).startswith(
        original.split("  - name: audit")[0]
    )
    shot(page, "yaml-tab")
    page.get_by_role("link", name="Form", exact=True).click()
    expect(_field(page, "w-0-timeout_seconds")).to_have_value("7")
    expect(_field(page, "w-1-ns-me-1-values")).to_have_value("payments, search")
    expect(_field(page, "w-1-r-0-api_groups")).to_have_value('"", apps')

    # The dry run on the cluster agrees.
    page.get_by_role("button", name="Dry run on the cluster").click()
    expect(page.locator("[data-dry-run=ok]")).to_be_visible()
    shot(page, "dry-run-accepted")

    # Reload, then leave and come back: the draft holds the change.
    page.reload()
    expect(_field(page, "w-0-timeout_seconds")).to_have_value("7")
    page.goto(GUARD_URL)
    page.get_by_role("link", name="My drafts").click()
    page.get_by_role("link", name=GUARD).click()
    expect(page.locator("#draft-text")).to_contain_text("ingresses")


def test_new_validating_configuration_from_scratch(page, editor, shot):
    page.goto("/clusters/prod/")
    sign_in(page, editor)
    page.get_by_role("button", name="New validating").click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/$"))
    page.get_by_role("link", name="Form", exact=True).click()
    # From scratch: no example webhook, a name of our own.
    _button(page, "remove:w-0").click()
    expect(_field(page, "w-0-name")).to_have_count(0)
    _field(page, "name").fill("team-a-policy")
    _button(page, "add:w").click()
    expect(_error(page, "w-0-side_effects")).to_contain_text("Required value")
    expect(_error(page, "w-0-target")).to_contain_text("exactly one of url or service")
    shot(page, "new-webhook-empty")

    _field(page, "w-0-name").fill("policy.team-a.example.com")
    _field(page, "w-0-service_namespace").fill("team-a")
    _field(page, "w-0-service_name").fill("policy")
    _field(page, "w-0-service_path").fill("/validate")
    _field(page, "w-0-side_effects").select_option("None")
    _field(page, "w-0-admission_review_versions").fill("v1")
    _field(page, "w-0-failure_policy").select_option("Ignore")
    _button(page, "add:w-0-r").click()
    page.locator("#f-w-0-r-0-operations_0").check()
    page.locator("#f-w-0-r-0-operations_1").check()
    _field(page, "w-0-r-0-api_groups").fill("apps")
    _field(page, "w-0-r-0-api_versions").fill("v1")
    _field(page, "w-0-r-0-resources").fill("deployments")
    _field(page, "w-0-r-0-scope").select_option("Namespaced")
    expect(page.locator("#form-valid")).to_be_visible()
    # The suggested title followed the new name into the propose form.
    expect(page.locator("#propose-title")).to_have_value("Create team-a-policy")
    shot(page, "new-valid")

    page.get_by_role("button", name="Dry run on the cluster").click()
    expect(page.locator("[data-dry-run=ok]")).to_be_visible()
    draft = ChangeRequest.objects.get()
    assert (draft.action, draft.name) == ("create", "team-a-policy")
    assert _saved()["webhooks"] == [
        {
            "name": "policy.team-a.example.com",
            "clientConfig": {
                "service": {
                    "namespace": "team-a",
                    "name": "policy",
                    "path": "/validate",
                }
            },
            "rules": [
                {
                    "operations": ["CREATE", "UPDATE"],
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "resources": ["deployments"],
                    "scope": "Namespaced",
                }
            ],
            "failurePolicy": "Ignore",
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
        }
    ]
    shot(page, "new-dry-run")


def test_clone_to_another_cluster(page, editor, shot):
    page.goto(GUARD_URL)
    sign_in(page, editor)
    page.locator("#clone-target").select_option("staging")
    page.locator("#clone-name").fill("platform-guard-copy")
    page.get_by_role("button", name="Clone…").click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/$"))
    page.get_by_role("link", name="Form", exact=True).click()
    expect(_field(page, "name")).to_have_value("platform-guard-copy")
    expect(_field(page, "w-1-name")).to_have_value("audit.platform.example.io")
    _field(page, "w-1-timeout_seconds").fill("4")
    expect(page.locator("#form-valid")).to_be_visible()
    page.get_by_role("button", name="Dry run on the cluster").click()
    expect(page.locator("[data-dry-run=ok]")).to_be_visible()
    draft = ChangeRequest.objects.get()
    assert (draft.cluster.name, draft.action) == ("staging", "create")
    assert _saved()["webhooks"][1]["timeoutSeconds"] == 4
    shot(page, "clone-dry-run")


def test_a_typed_title_survives_renames_and_yaml_renames_follow(page, editor, shot):
    page.goto("/clusters/prod/")
    sign_in(page, editor)
    page.get_by_role("button", name="New validating").click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/$"))
    title = page.locator("#propose-title")
    expect(title).to_have_value("Create new-webhook-configuration")

    # In the YAML tab, a rename moves the heading, the crumb and the title.
    text = page.locator("#draft-text")
    text.fill(text.input_value().replace("new-webhook-configuration", "edge-guard"))
    text.press("End")
    expect(page.locator("#draft-heading")).to_contain_text("edge-guard")
    expect(page.locator("#draft-crumb")).to_have_text("edge-guard")
    expect(title).to_have_value("Create edge-guard")

    # A title of the author's own is theirs: later renames leave it alone.
    title.fill("Guard the edge namespaces")
    text.fill(text.input_value().replace("edge-guard", "edge-guard-2"))
    text.press("End")
    expect(page.locator("#draft-heading")).to_contain_text("edge-guard-2")
    expect(title).to_have_value("Guard the edge namespaces")
    shot(page, "own-title-kept")
