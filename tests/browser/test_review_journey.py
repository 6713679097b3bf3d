"""A reviewer's journey through the dashboard, in a real browser.

Three sandbox clusters (dev, staging, prod from the built-in seeds) are
registered and synced; the tests sign in through the login form and assert
what a person sees on each page. Screenshots land in ``artifacts/browser/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.browser.conftest import ADMISSION_V1, Account, expected_counts

# Skips (with the reason) rather than failing to collect without Playwright.
expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser

VALIDATING = "ValidatingWebhookConfiguration"
# Differs between every pair of clusters (failurePolicy and timeoutSeconds of
# its first webhook in prod and staging): the configuration the journey follows.
GUARD = "platform-guard"
GUARD_WEBHOOK = "guard.platform.example.io"
GUARD_URL = f"/clusters/prod/validating/{GUARD}/"


def sign_in(page: Any, account: Account) -> None:
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill(account.username)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Sign in").click()


def bump_timeout(sandbox: Any, name: str, seconds: int) -> None:
    """Change the first webhook's timeout in the cluster itself (out of band)."""

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        obj["webhooks"][0]["timeoutSeconds"] = seconds
        return obj

    sandbox.store.patch(ADMISSION_V1, VALIDATING, name, None, change)


def matrix_row_names(page: Any) -> list[str]:
    return page.locator("#matrix tbody tr[data-row]").evaluate_all(
        "rows => rows.map(row => row.dataset.row)"
    )


def test_review_journey(page, operator, sandboxes, shot, tmp_path: Path):
    # Sign in through the form; the overview comes next.
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/$"))
    shot(page, "sign-in")
    sign_in(page, operator)
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", name="Clusters", exact=True)).to_be_visible()

    # Three cluster cards, each with the counts the cluster itself holds.
    cards = page.locator(".cluster-card")
    expect(cards).to_have_count(3)
    for name, sandbox in sandboxes.items():
        card = page.locator(f'.cluster-card[data-cluster="{name}"]')
        expect(card.get_by_role("link", name=name)).to_be_visible()
        for count, value in expected_counts(sandbox).items():
            expect(card.locator(f'[data-count="{count}"]')).to_have_text(str(value))
        expect(card.locator('[data-sync-state="succeeded"]')).to_have_text(
            "Last sync succeeded"
        )
    all_rows = matrix_row_names(page)
    assert GUARD in all_rows and "istio-sidecar-injector" in all_rows
    # The seeds hold webhooks that can take a cluster down: the overview says so
    # per cluster and lists the worst ones, each with its fix.
    prod_critical = page.locator(
        '[data-findings="prod"] [data-severity-count="critical"]'
    )
    expect(prod_critical).not_to_have_text("0 critical")
    critical_list = page.locator("#critical-findings .finding")
    expect(critical_list.first).to_contain_text("Fix:")
    assert critical_list.count() >= 3
    shot(page, "overview")

    # "Only differing" swaps the matrix in place (htmx, no reload) and keeps the
    # filter in the URL.
    page.evaluate("window.journeyMarker = 'same document'")
    page.get_by_label("Only differing").check()
    expect(page).to_have_url(re.compile(r"[?&]only_different=true"))
    expect(page.locator("#matrix tbody tr[data-differs=false]")).to_have_count(0)
    differing = matrix_row_names(page)
    assert GUARD in differing
    assert "istio-sidecar-injector" not in differing  # identical everywhere
    assert len(differing) < len(all_rows)
    assert page.evaluate("window.journeyMarker") == "same document"
    expect(page.locator("#matrix-summary")).to_contain_text(
        f"{len(differing)} configurations"
    )
    shot(page, "only-differing")

    # Search by name, as the user types.
    page.get_by_label("Search").press_sequentially("guard", delay=30)
    expect(page).to_have_url(re.compile(r"[?&]q=guard"))
    expect(page.locator("#matrix tbody tr[data-row]")).to_have_count(1)
    assert matrix_row_names(page) == [GUARD]
    assert page.evaluate("window.journeyMarker") == "same document"
    shot(page, "search")

    # Open prod's copy from its matrix cell.
    row = page.locator(f'#matrix tr[data-row="{GUARD}"]')
    row.locator('td[data-cluster="prod"] a').click()
    expect(page).to_have_url(re.compile(re.escape(GUARD_URL) + "$"))
    expect(page.get_by_role("heading", name=GUARD, level=1, exact=True)).to_be_visible()

    # The webhook's explanation: its failure policy, in words.
    section = page.locator(f'.webhook-section[data-webhook="{GUARD_WEBHOOK}"]')
    expect(section.get_by_text("fails closed", exact=True)).to_be_visible()
    failure_row = section.locator('tr[data-field="failurePolicy"]')
    expect(failure_row).to_contain_text("Fails closed")
    expect(failure_row).to_contain_text("slower than 5 s")
    shot(page, "configuration")

    # The YAML tab: highlighted source, and a download of exactly this object.
    page.get_by_role("link", name="YAML").click()
    expect(page).to_have_url(re.compile(re.escape(GUARD_URL) + "yaml/$"))
    highlighted = page.locator("#yaml-highlighted")
    expect(highlighted).to_be_visible()
    expect(highlighted).to_contain_text(f"name: {GUARD}")
    assert highlighted.locator("span[class]").count() > 10  # tokens are coloured
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download").click()
    download = download_info.value
    assert download.suggested_filename == f"prod-{GUARD}.yaml"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    document = yaml.safe_load(saved.read_text(encoding="utf-8"))
    assert document["kind"] == VALIDATING
    assert document["metadata"]["name"] == GUARD
    assert document["webhooks"][0]["timeoutSeconds"] == 5
    shot(page, "yaml")

    # Someone changes the cluster behind our back; "Sync now" on the cluster
    # page picks it up. The sandbox answers slowly once, so "running" shows.
    bump_timeout(sandboxes["prod"], GUARD, 7)
    sandboxes["prod"].inject_fault("/apis/admissionregistration.k8s.io", delay=2.0)
    page.get_by_role("navigation", name="breadcrumb").get_by_role(
        "link", name="prod"
    ).click()
    expect(page).to_have_url(re.compile(r"/clusters/prod/$"))
    shot(page, "cluster")
    status_polls: list[str] = []
    page.on(
        "request",
        lambda request: (
            "/sync/status/" in request.url and status_polls.append(request.url)
        ),
    )
    region = page.locator("#sync-prod")
    region.get_by_role("button", name="Sync now").click()
    pending = region.locator('[data-sync-state="queued"], [data-sync-state="running"]')
    expect(pending).to_have_text(re.compile(r"Sync (queued|running)…"))
    expect(region.get_by_role("button", name="Sync now")).to_have_count(0)
    shot(page, "sync-queued")
    expect(region.locator('[data-sync-state="running"]')).to_have_text("Sync running…")
    expect(region.locator('[data-sync-state="succeeded"]')).to_have_text(
        "Last sync succeeded", timeout=15_000
    )
    expect(page).to_have_url(re.compile(r"/clusters/prod/$"))  # no navigation
    assert status_polls, "the status region never polled"
    polls_when_done = len(status_polls)
    page.wait_for_timeout(2_500)
    assert len(status_polls) == polls_when_done, "polling did not stop"
    expect(region.get_by_role("button", name="Sync now")).to_be_visible()
    shot(page, "sync-succeeded")

    # When the sync is done the page reloads itself: the sync history lists
    # the new run without the user reloading; the explanation reads the new
    # timeout.
    latest_run = page.locator("#sync-history tbody tr").first
    expect(latest_run).to_contain_text("succeeded")
    expect(latest_run).to_contain_text("~1")
    expect(latest_run).to_contain_text("olive")
    page.locator(f'#configurations tr[data-configuration="{GUARD}"]').get_by_role(
        "link", name=GUARD
    ).click()
    expect(page).to_have_url(re.compile(re.escape(GUARD_URL) + "$"))
    expect(
        page.locator(
            f'.webhook-section[data-webhook="{GUARD_WEBHOOK}"] '
            'tr[data-field="failurePolicy"]'
        )
    ).to_contain_text("slower than 7 s")

    # History: two revisions; comparing them shows the timeout change.
    page.get_by_role("link", name=re.compile(r"^History")).click()
    expect(page).to_have_url(re.compile(re.escape(GUARD_URL) + "history/"))
    revisions = page.locator("#revisions tbody tr")
    expect(revisions).to_have_count(2)
    expect(revisions.first).to_contain_text("modified")
    page.get_by_label("Compare revision").select_option("1")
    page.get_by_label("with").select_option("2")
    page.get_by_role("button", name="Show diff").click()
    expect(page).to_have_url(re.compile(r"from=1&to=2"))
    semantic = page.locator("#semantic-diff tbody tr")
    expect(semantic).to_have_count(1)
    expect(semantic.first).to_contain_text("timeoutSeconds")
    expect(semantic.first).to_contain_text(re.compile(r"5\D+7"))
    expect(page.locator("#yaml-diff .diff-removed")).to_contain_text(
        "timeoutSeconds: 5"
    )
    expect(page.locator("#yaml-diff .diff-added")).to_contain_text("timeoutSeconds: 7")
    shot(page, "history")

    # Compare across clusters: staging against prod, side by side.
    page.get_by_role("link", name="Compare across clusters").click()
    expect(page).to_have_url(re.compile(rf"/compare/validating/{GUARD}/$"))
    page.get_by_label("Left").select_option("staging")
    page.get_by_label("Right").select_option("prod")
    page.get_by_role("button", name="Compare").click()
    expect(page).to_have_url(re.compile(r"left=staging&right=prod"))
    expect(page.get_by_role("heading", name="staging → prod")).to_be_visible()
    changes = page.locator("#semantic-diff tbody")
    expect(changes).to_contain_text("failurePolicy")
    expect(changes).to_contain_text("timeoutSeconds")
    columns = page.locator("#yaml-diff-columns")
    expect(columns.locator("thead")).to_contain_text("staging")
    expect(columns.locator("thead")).to_contain_text("prod")
    expect(
        columns.locator(".diff-removed", has_text="failurePolicy: Ignore")
    ).to_have_count(1)
    expect(
        columns.locator(".diff-added", has_text="failurePolicy: Fail")
    ).to_have_count(1)
    shot(page, "compare")

    # Sign out: back to the sign-in page, and the overview is closed again.
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login/$"))
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/$"))
    shot(page, "signed-out")


def test_anonymous_visitor_is_sent_to_sign_in(page, operator, shot):
    page.goto("/clusters/prod/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/clusters/prod/$"))
    expect(page.locator(".cluster-card")).to_have_count(0)
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)
    shot(page, "sign-in")
    sign_in(page, operator)
    # Back where the visitor was going.
    expect(page).to_have_url(re.compile(r"/clusters/prod/$"))
    expect(
        page.locator("#configurations tbody tr[data-configuration]")
    ).not_to_have_count(0)
    shot(page, "after-sign-in")


def test_user_without_a_role_sees_no_clusters(page, outsider, browser_errors, shot):
    page.goto("/")
    sign_in(page, outsider)
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator(".cluster-card")).to_have_count(0)
    expect(page.get_by_text("No clusters you can see yet")).to_be_visible()
    # No filters or matrix to fiddle with when there is nothing to compare.
    expect(page.locator("#matrix")).to_have_count(0)
    shot(page, "overview")

    # A cluster's page is not found at all (its name is not even confirmed).
    browser_errors.allow(r"status of 404 .*/clusters/prod/\)$")
    response = page.goto("/clusters/prod/")
    assert response is not None and response.status == 404
    expect(page.locator("body")).not_to_contain_text("platform-guard")
    shot(page, "cluster-not-found")
