"""Coverage in a real browser: who intercepts creating a Pod in a namespace
labelled for sidecar injection, then the webhook on its configuration page,
the configuration's Coverage tab and the cluster-wide view."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import ADMISSION_V1, Account
from webhooks_ui.domain.coverage import prepare_configurations, who_intercepts
from webhooks_ui.domain.kinds import KINDS

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser

NAMESPACE = "payments"  # istio-injection=enabled in the prod seeds
INJECTOR = "istio-sidecar-injector"
BY_NAMESPACE = "namespace.sidecar-injector.istio.io"
BY_OBJECT = "object.sidecar-injector.istio.io"
SAMPLE = """apiVersion: v1
kind: Pod
metadata:
  name: api-0
  labels:
    app: api
    sidecar.istio.io/inject: "false"
spec:
  containers:
    - name: api
      image: registry.example.com/api:1.0
"""


def sign_in(page: Any, account: Account) -> None:
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill(account.username)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Sign in").click()


def expected_order(sandbox: Any) -> list[str]:
    """The call order straight from the domain, for the sandbox's own objects."""
    configurations = [
        obj for kind in KINDS for obj in sandbox.store.list(ADMISSION_V1, kind)
    ]
    namespace = sandbox.store.get("v1", "Namespace", NAMESPACE)
    request = {
        "operation": "CREATE",
        "group": "",
        "version": "v1",
        "resource": "pods",
        "kind": "Pod",
        "namespace": NAMESPACE,
        "namespace_labels": namespace["metadata"]["labels"],
        "object_labels": {},
    }
    result = who_intercepts(prepare_configurations(configurations), request)
    return [entry.webhook_name for entry in result.webhooks]


def listed(page: Any) -> list[str]:
    return page.locator("#intercepting li[data-webhook]").evaluate_all(
        "items => items.map(item => item.dataset.webhook)"
    )


def test_coverage_journey(page, operator, sandboxes, shot):
    page.goto("/")
    sign_in(page, operator)
    expect(page.get_by_role("heading", name="Clusters", exact=True)).to_be_visible()

    # The navbar leads to the explorer; pick prod and its pods.
    page.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Coverage"
    ).click()
    expect(page).to_have_url(re.compile(r"/coverage/$"))
    expect(
        page.get_by_role("heading", name="Who intercepts this request?")
    ).to_be_visible()
    page.evaluate("window.journeyMarker = 'same document'")
    page.get_by_label("Cluster").select_option("prod")
    expect(page.locator("#explorer-hint")).to_contain_text("that prod serves")
    assert page.locator('#resource-options option[value="v1/pods"]').count() == 1
    page.get_by_label("Resource").fill("v1/pods")
    page.get_by_label("Operation").select_option("CREATE")
    page.get_by_label("Namespace").fill(NAMESPACE)
    shot(page, "explorer-question")
    page.get_by_role("button", name="Show webhooks").click()

    # The answer swaps in place and the question lives in the URL.
    title = page.locator("#result-title")
    expect(title).to_contain_text(f"CREATE v1/pods in namespace {NAMESPACE}")
    expect(page).to_have_url(re.compile(r"cluster=prod.*resource=v1%2Fpods"))
    expect(page).to_have_url(re.compile(rf"namespace={NAMESPACE}"))
    assert page.evaluate("window.journeyMarker") == "same document"
    order = listed(page)
    assert order == expected_order(sandboxes["prod"])
    assert order[0] == BY_NAMESPACE  # mutating first; istio's injector by name
    assert BY_OBJECT not in order
    injector = page.locator(f'#intercepting li[data-webhook="{BY_NAMESPACE}"]')
    expect(injector).to_contain_text(f"namespace {NAMESPACE} is selected")
    expect(injector).to_contain_text("fails closed")
    expect(injector).to_contain_text("IfNeeded")
    skipped = page.locator(f'#not-matching tr[data-webhook="{BY_OBJECT}"]')
    expect(skipped).to_contain_text("namespaceSelector")
    expect(page.locator("#worst-case")).to_contain_text("Worst-case added latency")
    shot(page, "explorer-answer")

    # A shared link answers the same question without JavaScript's help.
    shared = page.url
    page.goto(shared)
    assert listed(page) == order

    # A pod that opts out of injection: its labels meet the objectSelector,
    # and the matchConditions run on it.
    page.get_by_label("Sample object (YAML or JSON)").fill(SAMPLE)
    page.get_by_role("button", name="Show webhooks").click()
    expect(
        page.locator(f'#not-matching tr[data-webhook="{BY_NAMESPACE}"]')
    ).to_contain_text("objectSelector")
    assert BY_NAMESPACE not in listed(page)
    expect(page.locator("#result-summary")).to_contain_text("sidecar.istio.io/inject")
    shot(page, "explorer-sample")

    # Bad YAML is an error, not a guess.
    page.get_by_label("Sample object (YAML or JSON)").fill("metadata: [unclosed")
    page.get_by_role("button", name="Show webhooks").click()
    expect(page.locator("#explorer-errors")).to_contain_text(
        "The sample object is not valid YAML or JSON"
    )
    shot(page, "explorer-bad-yaml")

    # Back to the answer, then to the webhook on its configuration page.
    page.goto(shared)
    page.locator(f'#intercepting li[data-webhook="{BY_NAMESPACE}"]').get_by_role(
        "link", name=BY_NAMESPACE
    ).click()
    expect(page).to_have_url(
        re.compile(rf"/clusters/prod/mutating/{INJECTOR}/#webhook-0$")
    )
    section = page.locator("#webhook-0")
    expect(section).to_have_attribute("data-webhook", BY_NAMESPACE)
    expect(section).to_be_in_viewport()
    shot(page, "configuration-webhook")

    # The configuration's Coverage tab: what each webhook covers on prod.
    page.get_by_role("link", name="Coverage", exact=True).last.click()
    expect(page).to_have_url(re.compile(rf"/{INJECTOR}/coverage/$"))
    card = page.locator(f'.coverage-card[data-webhook="{BY_NAMESPACE}"]')
    expect(card.locator('tr[data-resource="v1/pods"]')).to_contain_text("CREATE")
    expect(card.locator(".coverage-selected")).to_contain_text(NAMESPACE)
    expect(card.locator('[data-fact="match-conditions"]')).to_contain_text(
        "not-already-injected"
    )
    shot(page, "configuration-coverage")

    # The cluster-wide view, from the cluster page.
    page.goto("/clusters/prod/")
    page.get_by_role("link", name="What its webhooks intercept").click()
    expect(page).to_have_url(re.compile(r"/clusters/prod/coverage/$"))
    pods = page.locator('#resource-coverage tr[data-resource="v1/pods"]')
    expect(pods).to_be_visible()
    assert int(pods.get_attribute("data-count")) >= len(order)
    expect(
        page.locator('#system-namespaces tr[data-namespace="kube-system"]')
    ).to_be_visible()
    shot(page, "cluster-coverage")
    page.locator("#resource-coverage").get_by_role("link", name="Resource").click()
    expect(page).to_have_url(re.compile(r"sort=resource"))
    expect(page.locator('#resource-coverage th[aria-sort="ascending"]')).to_have_text(
        "Resource"
    )
    labels = page.locator("#resource-coverage tbody tr").evaluate_all(
        "rows => rows.map(row => row.dataset.resource)"
    )
    assert labels == sorted(labels) and "v1/pods" in labels
    pods.get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/coverage/\?cluster=prod"))
    expect(page.locator("#result-title")).to_contain_text("v1/pods")
    shot(page, "explorer-from-cluster")
