"""Change requests and the audit log in a real browser: the navigation's
counts, the change list's tabs and filters, the audit log's filters and
details, the CSV download, and a cluster admin's policy settings."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.browser.conftest import PASSWORD, Account
from webhooks_ui.models import ChangeRequest, ChangeReview, ClusterMembership
from webhooks_ui.services.audit import Action, audit_record

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser

VALIDATING = "ValidatingWebhookConfiguration"


def sign_in(page: Any, account: Account) -> None:
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill(account.username)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Sign in").click()


@pytest.fixture
def reviewer(clusters) -> Account:
    """Approver everywhere, admin on prod; other people's changes to review."""
    users = get_user_model().objects
    rita = users.create_user("rita", password=PASSWORD)
    ada = users.create_user("ada", password=PASSWORD)
    for cluster in clusters.values():
        ClusterMembership.objects.create(cluster=cluster, user=rita, role="approver")
        ClusterMembership.objects.create(cluster=cluster, user=ada, role="editor")
    ClusterMembership.objects.create(cluster=clusters["prod"], user=rita, role="admin")

    def change(cluster, state, title, name):
        return ChangeRequest.objects.create(
            cluster=clusters[cluster],
            author=ada,
            state=state,
            action="update",
            kind=VALIDATING,
            name=name,
            title=title,
        )

    proposed = change("prod", "in_review", "Shorter timeout for <guard>", "guard")
    change("staging", "in_review", "Ignore kube-system", "policy-check")
    approved = change("dev", "approved", "Fail closed in dev", "platform-guard")
    ChangeReview.objects.create(
        change=approved, reviewer=rita, verdict="approve", change_version=1
    )
    change("dev", "draft", "Ada's private draft", "secret")
    audit_record(
        action=Action.CHANGE_PROPOSED,
        actor=ada,
        change=proposed,
        summary="ada proposed a shorter timeout",
    )
    audit_record(
        action=Action.CHANGE_APPLIED,
        actor=rita,
        change=approved,
        summary="=cmd|' /C calc'!A0 applied",
        detail={
            "sent": {"kind": VALIDATING, "metadata": {"name": "platform-guard"}},
            "answer": {"status": 200, "resourceVersion": "42"},
        },
    )
    return Account("rita", PASSWORD)


def test_changes_and_audit_journey(page, reviewer, shot, tmp_path):
    page.goto("/changes/")
    sign_in(page, reviewer)
    expect(page).to_have_url(re.compile(r"/changes/$"))
    # Two changes await rita's review (the approved one she already approved).
    expect(page.locator("#nav-awaiting")).to_have_text(re.compile(r"^2"))
    rows = page.locator("#changes tbody tr[data-change]")
    expect(rows).to_have_count(3)  # not ada's draft
    expect(page.get_by_text("Shorter timeout for <guard>")).to_be_visible()
    expect(page.locator("#changes")).not_to_contain_text("private draft")
    shot(page, "change-list-all")

    page.get_by_role("link", name=re.compile(r"^Awaiting my review")).click()
    expect(page).to_have_url(re.compile(r"tab=review"))
    expect(rows).to_have_count(2)
    shot(page, "change-list-awaiting")

    # Filters update the results in place (htmx) and the URL.
    page.get_by_label("Cluster").select_option("prod")
    expect(rows).to_have_count(1)
    expect(page).to_have_url(re.compile(r"cluster=prod"))
    expect(rows.first).to_contain_text("0 of 1")
    shot(page, "change-list-filtered")

    # The audit log: newest first, filter by action, open the detail.
    page.get_by_role("link", name="Audit log").click()
    expect(page.get_by_role("heading", name="Audit log")).to_be_visible()
    events = page.locator("#audit-events tbody tr[data-event]")
    expect(events.first).to_have_attribute("data-action", "change.applied")
    shot(page, "audit-list")

    page.get_by_label("Action").select_option("change.applied")
    expect(events).to_have_count(1)
    expect(page).to_have_url(re.compile(r"action=change.applied"))
    events.first.locator("summary").click()
    expect(events.first.locator("pre")).to_contain_text('"resourceVersion": "42"')
    shot(page, "audit-filtered-detail")

    # The download keeps the filter (the link was refreshed with the results).
    with page.expect_download() as download_info:
        page.locator("#export-csv").click()
    path = tmp_path / "audit.csv"
    download_info.value.save_as(path)
    rows_csv = list(csv.reader(io.StringIO(path.read_text())))
    assert rows_csv[0] == [
        "at",
        "actor",
        "action",
        "cluster",
        "kind",
        "name",
        "change",
        "summary",
    ]
    assert [row[2] for row in rows_csv[1:]] == ["change.applied"]
    assert rows_csv[1][7] == "'=cmd|' /C calc'!A0 applied"

    # A cluster admin edits the approval policy; a bad window is explained.
    page.goto("/clusters/prod/")
    expect(page.locator("#policy-summary")).to_contain_text("1 approval required")
    page.locator("#cluster-settings-link").click()
    page.get_by_label("Approvals required").fill("2")
    page.get_by_label("Change window").fill("weekdays 9 to 5")
    page.get_by_role("button", name="Save policy").click()
    expect(page.locator("#error_change_window")).to_contain_text("is not a window")
    shot(page, "cluster-settings-error")
    page.get_by_label("Change window").fill("Mon-Fri 09:00-17:00 Europe/Berln")
    page.get_by_role("button", name="Save policy").click()
    expect(page.locator("#error_change_window")).to_contain_text(
        "'Europe/Berln' is not a time zone"
    )
    page.get_by_label("Change window").fill("Mon-Fri 09:00-17:00 Europe/Berlin")
    page.get_by_role("button", name="Save policy").click()
    expect(page.get_by_role("status")).to_contain_text("Approval policy saved")
    shot(page, "cluster-settings-saved")
    page.goto("/clusters/prod/")
    expect(page.locator("#policy-summary")).to_contain_text(
        "change window Mon-Fri 09:00-17:00 Europe/Berlin"
    )
    page.goto("/audit/?action=cluster.policy_changed")
    expect(page.locator("#audit-events tbody tr[data-event]")).to_have_count(1)
    expect(page.locator("#audit-events")).to_contain_text(
        "Mon-Fri 09:00-17:00 Europe/Berlin"
    )
    shot(page, "audit-policy-changed")
