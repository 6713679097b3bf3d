"""Two people, two browsers: one proposes, another approves, an operator applies.

Each person has their own browser context (their own session cookie). The
change reaches the sandbox cluster only after the approval; the configuration
page then shows the new revision and the audit log every step.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.browser.conftest import ADMISSION_V1, PASSWORD, TIMEOUT_MS, Account
from tests.browser.test_review_journey import GUARD, GUARD_URL, sign_in
from webhooks_ui.models import ChangeRequest, ClusterMembership

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser
Role = ClusterMembership.Role


@pytest.fixture
def team(clusters) -> dict[str, Account]:
    people = {
        "author": Role.EDITOR,
        "reviewer": Role.APPROVER,
        "operator": Role.OPERATOR,
    }
    accounts = {}
    for name, role in people.items():
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        ClusterMembership.objects.create(cluster=clusters["prod"], user=user, role=role)
        accounts[name] = Account(name, PASSWORD)
    return accounts


@pytest.fixture
def second_page(browser, live_server, browser_errors) -> Iterator[Any]:
    """Another person's browser: a separate context, errors recorded the same."""
    pages = []

    def open_page() -> Any:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1280, "height": 900}
        )
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.on(
            "console",
            lambda m: m.type == "error" and browser_errors.record(f"console: {m.text}"),
        )
        page.on("pageerror", lambda e: browser_errors.record(f"page error: {e}"))
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        page.context.close()


def _yaml_editor(page: Any) -> Any:
    text = page.locator("#draft-text")
    if not text.is_visible():
        page.get_by_role("link", name="YAML", exact=True).click()
    expect(text).to_be_visible()
    return text


def test_propose_approve_apply_with_two_people(
    page, second_page, team, sandboxes, shot
):
    # The author edits and proposes.
    page.goto(GUARD_URL)
    sign_in(page, team["author"])
    page.get_by_role("button", name="Edit", exact=True).click()
    expect(page).to_have_url(re.compile(r"/drafts/\d+/"))
    text = _yaml_editor(page)
    content = text.input_value()
    assert "timeoutSeconds: 5" in content
    text.fill(content.replace("timeoutSeconds: 5", "timeoutSeconds: 3", 1))
    text.press("End")
    expect(page.locator("#saved")).to_be_visible()
    page.get_by_label("Title").fill("Fail faster: guard timeout 3s")
    page.get_by_label("Why (for reviewers)").fill("p99 of the guard is 40 ms.")
    page.get_by_role("button", name="Propose").click()
    expect(page).to_have_url(re.compile(r"/changes/\d+/$"))
    expect(page.locator("#change-state")).to_have_text("in review")
    expect(page.locator("#self-review")).to_be_visible()
    expect(page.locator("#dry-run-section [data-dry-run=ok]")).to_be_visible()
    change_url = page.url
    shot(page, "author-proposed")

    # The reviewer, in their own browser, approves.
    reviewer = second_page()
    reviewer.goto(change_url)
    sign_in(reviewer, team["reviewer"])
    expect(reviewer.locator("#semantic-diff")).to_contain_text("timeoutSeconds")
    expect(reviewer.locator("#apply")).to_have_count(0)
    reviewer.get_by_label("Review").fill("Checked the latency dashboard.")
    reviewer.get_by_role("button", name="Approve").click()
    expect(reviewer.locator("#change-state")).to_have_text("approved")
    expect(reviewer.locator("#discussion")).to_contain_text("Checked the latency")
    shot(reviewer, "reviewer-approved")

    # Nothing reached the cluster yet.
    stored = sandboxes["prod"].store.get(
        ADMISSION_V1, "ValidatingWebhookConfiguration", GUARD
    )
    assert stored["webhooks"][0]["timeoutSeconds"] == 5

    # The operator applies.
    operator = second_page()
    operator.goto(change_url)
    sign_in(operator, team["operator"])
    expect(operator.locator("#approval-count")).to_contain_text("1 of 1")
    operator.get_by_role("button", name="Apply to prod").click()
    expect(operator.locator("#change-state")).to_have_text("applied")
    expect(operator.locator("#applied")).to_contain_text("revision 2")
    shot(operator, "operator-applied")
    stored = sandboxes["prod"].store.get(
        ADMISSION_V1, "ValidatingWebhookConfiguration", GUARD
    )
    assert stored["webhooks"][0]["timeoutSeconds"] == 3

    # The configuration page shows the new revision.
    operator.get_by_role("link", name="revision 2").click()
    expect(operator.locator('#revisions tr[data-revision="2"]')).to_contain_text(
        "timeoutSeconds"
    )
    shot(operator, "history")

    # The timeline on the change page has every step, by the right people.
    page.goto(change_url)
    timeline = page.locator("#timeline")
    expect(timeline.locator('[data-action="change.proposed"]')).to_contain_text(
        "author"
    )
    expect(timeline.locator('[data-action="change.approved"]')).to_contain_text(
        "reviewer"
    )
    expect(timeline.locator('[data-action="change.applied"]')).to_contain_text(
        "operator"
    )
    shot(page, "timeline")

    # The audit log has the same steps, with what was sent to the cluster.
    page.locator("#audit-link").click()
    expect(page).to_have_url(re.compile(r"/audit/\?change=\d+"))
    for action in ("change.proposed", "change.approved", "change.applied"):
        events = page.locator("#audit-events")
        expect(events.get_by_text(action, exact=True)).to_be_visible()
    shot(page, "audit-log")
    assert ChangeRequest.objects.get().state == "applied"
