"""An editor's journey in a real browser: Edit, type, see errors and the diff
as you type (htmx under the strict CSP), dry-run, leave and come back."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tests.browser.conftest import PASSWORD, Account
from tests.browser.test_review_journey import GUARD, GUARD_URL, sign_in
from webhooks_ui.models import ChangeRequest, ClusterMembership

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser


@pytest.fixture
def editor(clusters) -> Account:
    user = get_user_model().objects.create_user("eddie", password=PASSWORD)
    ClusterMembership.objects.create(
        cluster=clusters["prod"], user=user, role=ClusterMembership.Role.EDITOR
    )
    return Account("eddie", PASSWORD)


def test_editor_journey(page, editor, shot):
    page.goto(GUARD_URL)
    sign_in(page, editor)
    page.get_by_role("button", name="Edit", exact=True).click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/$"))
    text = page.locator("#draft-text")
    expect(text).to_contain_text(GUARD)
    expect(page.locator("#no-errors")).to_be_visible()
    shot(page, "editor")

    # Typing (debounced) saves and shows the error at its apiserver path.
    content = text.input_value()
    text.fill(content.replace("sideEffects: None", "sideEffects: Often", 1))
    text.press("End")
    errors = page.locator("#field-errors")
    expect(errors).to_contain_text("sideEffects")
    expect(errors).to_contain_text("line ")
    expect(page.locator("#yaml-diff .diff-added")).to_contain_text("Often")
    shot(page, "error-while-typing")

    # The apiserver agrees, field by field.
    page.get_by_role("button", name="Dry run on the cluster").click()
    expect(page.locator("[data-dry-run=failed]")).to_be_visible()
    expect(page.locator("#dry-run-errors")).to_contain_text("sideEffects")
    shot(page, "dry-run-rejected")

    # Leave and come back: the text is as typed.
    page.goto(GUARD_URL)
    page.get_by_role("link", name="My drafts").click()
    page.get_by_role("link", name=GUARD).click()
    expect(page.locator("#draft-text")).to_contain_text("sideEffects: Often")
    assert ChangeRequest.objects.get().proposed_text.count("Often") == 1

    # Fix it; the dry run now passes.
    fixed = page.locator("#draft-text").input_value().replace("Often", "None")
    page.locator("#draft-text").fill(fixed)
    page.locator("#draft-text").press("End")
    expect(page.locator("#no-errors")).to_be_visible()
    page.get_by_role("button", name="Dry run on the cluster").click()
    expect(page.locator("[data-dry-run=ok]")).to_be_visible()
    shot(page, "dry-run-accepted")
