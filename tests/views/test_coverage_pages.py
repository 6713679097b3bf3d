"""Coverage pages: a configuration's Coverage tab, the explorer, the cluster view.

Alpha here holds the shared view fixtures' configurations plus two with
selectors (an injector limited to labelled namespaces, a validator limited to
labelled objects) and two namespaces, one labelled for injection.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests import factories
from tests.views.conftest import ALPHA_OBJECTS, BETA_OBJECTS
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.models import Cluster, WebhookConfiguration
from webhooks_ui.review.coverage import coverage_cache_clear


def _injector_demo() -> dict:
    obj = factories.configuration("injector-demo", kind=MUTATING)
    hook = obj["webhooks"][0]
    hook.update(
        name="inject.demo.io",
        failurePolicy="Ignore",
        timeoutSeconds=3,
        namespaceSelector={"matchLabels": {"istio-injection": "enabled"}},
        objectSelector={
            "matchExpressions": [
                {
                    "key": "sidecar.istio.io/inject",
                    "operator": "NotIn",
                    "values": ["false"],
                }
            ]
        },
    )
    hook["rules"][0]["operations"] = ["CREATE"]
    return obj


def _labelled_only() -> dict:
    obj = factories.configuration("labelled-only")
    obj["webhooks"][0].update(
        name="labelled.demo.io", objectSelector={"matchLabels": {"app": "web"}}
    )
    return obj


ALPHA_EXTRA = [
    factories.namespace("mesh", {"istio-injection": "enabled"}),
    factories.namespace("plain"),
    _injector_demo(),
    _labelled_only(),
]
# Call order for CREATE pods in "mesh", an object without labels: mutating
# configurations by name, then validating ones by name.
MESH_ORDER = [
    "inject.demo.io",
    "w0.sidecar-injector.example.com",
    "w0.drifting.example.com",
    "w0.only-alpha.example.com",
    "w0.shared-checks.example.com",
    "w1.shared-checks.example.com",
]


@pytest.fixture(scope="module")
def sandboxes():
    alpha = factories.start_sandbox("alpha", copy.deepcopy(ALPHA_OBJECTS + ALPHA_EXTRA))
    beta = factories.start_sandbox("beta", copy.deepcopy(BETA_OBJECTS))
    yield alpha, beta
    alpha.stop()
    beta.stop()


@pytest.fixture(autouse=True)
def _fresh_cache():
    coverage_cache_clear()
    yield
    coverage_cache_clear()


def explore(client, **params):
    query = {"cluster": "alpha", "operation": "CREATE", **params}
    return client.get("/coverage/?" + urlencode(query))


def intercepting(html: str) -> list[str]:
    region = html.split('id="intercepting"', 1)[1].split("</ol>", 1)[0]
    return re.findall(
        r'<li class="card mb-2 interceptor" data-webhook="([^"]+)"', region
    )


def not_matching(html: str) -> dict[str, str]:
    if 'id="not-matching"' not in html:
        return {}
    region = html.split('id="not-matching"', 1)[1].split("</table>", 1)[0]
    return dict(re.findall(r'data-webhook="([^"]+)" data-reason="([^"]+)"', region))


# --- explorer ----------------------------------------------------------------------


def test_explorer_lists_the_webhooks_in_call_order(admin_client, clusters):
    response = explore(admin_client, resource="v1/pods", namespace="mesh")
    html = response.content.decode()
    assert response.status_code == 200
    assert intercepting(html) == MESH_ORDER
    # Why: the rule, the namespace judged by its labels, failure policy, timeout.
    assert "rule 0 matches CREATE pods (core/v1)" in html
    assert "namespace mesh is selected" in html
    assert "fails open (Ignore)" in html and "fails closed" in html
    assert 'data-timeout="3"' in html
    # 3 + 10 (injector) + 5 (drifting) + 3 × 10.
    assert "Worst-case added latency: 48 s" in html
    # Each webhook links to its section on its configuration page.
    assert 'href="/clusters/alpha/mutating/injector-demo/#webhook-0"' in html
    assert not_matching(html) == {"labelled.demo.io": "objectSelector"}
    assert "the new object has no label app" in html


def test_explorer_says_why_webhooks_do_not_match(admin_client, clusters):
    html = explore(admin_client, resource="v1/pods", namespace="plain").content
    html = html.decode()
    assert "inject.demo.io" not in intercepting(html)
    assert not_matching(html)["inject.demo.io"] == "namespaceSelector"
    assert "namespace plain has no label istio-injection" in html
    # DELETE is in no rule: a rules miss (after the selectors, checked first).
    html = explore(
        admin_client, resource="v1/pods", namespace="mesh", operation="DELETE"
    ).content.decode()
    assert intercepting(html) == []
    reasons = not_matching(html)
    assert reasons["w0.drifting.example.com"] == "rules"
    assert reasons["labelled.demo.io"] == "objectSelector"
    assert "no rule matches DELETE pods (core/v1)" in html
    assert "No webhook intercepts this request" in html


def test_a_pasted_sample_objects_labels_meet_the_object_selector(
    admin_client, clusters
):
    sample = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  labels:\n"
        "    app: web\n    sidecar.istio.io/inject: 'false'\n"
    )
    html = explore(
        admin_client, resource="v1/pods", namespace="mesh", sample=sample
    ).content.decode()
    order = intercepting(html)
    assert "labelled.demo.io" in order
    # The opt-out label keeps the injector away.
    assert not_matching(html) == {"inject.demo.io": "objectSelector"}
    assert "app=web" in html


def test_labels_typed_in_the_form_count_too(admin_client, clusters):
    html = explore(
        admin_client, resource="v1/pods", namespace="plain", labels="app=web"
    ).content.decode()
    assert "labelled.demo.io" in intercepting(html)


def test_bad_yaml_is_reported_not_guessed(admin_client, clusters):
    html = explore(
        admin_client, resource="v1/pods", namespace="mesh", sample="a: [unclosed"
    ).content.decode()
    assert 'id="explorer-errors"' in html
    assert "The sample object is not valid YAML or JSON" in html
    assert 'id="intercepting"' not in html


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"resource": "v1/nopes", "namespace": "mesh"}, "serves no resource"),
        ({"resource": "v1/pods"}, "pods is namespaced: give a namespace"),
        ({"resource": "v1/pods", "labels": "bad key=x"}, "Object labels"),
    ],
)
def test_explorer_input_errors_are_clear(admin_client, clusters, params, message):
    html = explore(admin_client, **params).content.decode()
    assert 'id="explorer-errors"' in html and message in html


def test_a_missing_namespace_warns_that_the_apiserver_would_reject(
    admin_client, clusters
):
    html = explore(admin_client, resource="v1/pods", namespace="ghost").content
    html = html.decode()
    assert 'id="namespace-missing"' in html
    assert "would reject the request (NotFound)" in html
    # Webhooks with empty namespaceSelectors still match; the injector's
    # selector would make the apiserver reject the request.
    assert not_matching(html)["inject.demo.io"] == "namespace-not-found"
    assert 'id="rejected"' in html


def test_bare_resource_names_resolve_to_the_preferred_version(admin_client, clusters):
    html = explore(admin_client, resource="pods", namespace="mesh").content.decode()
    assert intercepting(html) == MESH_ORDER


def test_explorer_answers_htmx_with_the_result_region_only(admin_client, clusters):
    response = admin_client.get(
        "/coverage/?cluster=alpha&resource=v1/pods&operation=CREATE&namespace=mesh",
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="result"')
    assert "<html" not in html and intercepting(html) == MESH_ORDER
    assert "HX-Request" in response["Vary"]


def test_the_explorer_form_is_a_plain_get_form(admin_client, clusters):
    html = admin_client.get("/coverage/").content.decode()
    form = html.split('id="explorer-form"', 1)[0].rsplit("<form", 1)[1]
    assert 'method="get"' in form and 'action="/coverage/"' in form
    assert 'list="resource-options"' in html and 'value="v1/pods"' in html
    assert "<script>" not in html and "style=" not in html


def test_a_cluster_you_cannot_see_is_a_form_error_never_data(client, role_user):
    client.force_login(role_user("viewer"))
    html = explore(client, cluster="beta", resource="v1/pods", namespace="default")
    html = html.content.decode()
    assert "There is no cluster named “beta” that you can see." in html
    assert 'id="intercepting"' not in html and "shared-checks" not in html
    # Only alpha is offered.
    assert '<option value="beta"' not in html
    assert (
        intercepting(
            explore(client, resource="v1/pods", namespace="mesh").content.decode()
        )
        == MESH_ORDER
    )


@pytest.mark.parametrize(
    "url",
    [
        "/coverage/",
        "/coverage/?cluster=alpha&resource=v1/pods&namespace=mesh",
        "/clusters/alpha/coverage/",
        "/clusters/alpha/validating/drifting/coverage/",
    ],
)
def test_anonymous_visitors_are_sent_to_sign_in(client, clusters, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.parametrize(
    "url",
    ["/clusters/alpha/coverage/", "/clusters/alpha/validating/drifting/coverage/"],
)
def test_cluster_pages_are_404_without_a_role(client, nobody, clusters, url):
    client.force_login(nobody)
    assert client.get(url).status_code == 404


# --- the Coverage tab --------------------------------------------------------------


def test_coverage_tab_lists_resources_operations_and_namespaces(admin_client, clusters):
    html = admin_client.get(
        "/clusters/alpha/validating/drifting/coverage/"
    ).content.decode()
    assert 'href="/clusters/alpha/validating/drifting/coverage/"' in html
    row = re.search(r'<tr data-resource="v1/pods" data-operations="([^"]+)"', html)
    assert row and row[1] == "CREATE,UPDATE"
    assert 'data-fact="cluster-scoped"' in html and "not covered" in html
    assert "every namespace (the namespaceSelector is empty)" in html
    assert "does not narrow" in html


def test_coverage_tab_shows_selected_and_excluded_namespaces(admin_client, clusters):
    html = admin_client.get(
        "/clusters/alpha/mutating/injector-demo/coverage/"
    ).content.decode()
    selected = html.split("coverage-selected", 1)[1].split("</p>", 1)[0]
    assert 'data-namespace="mesh"' in selected and "plain" not in selected
    excluded = html.split("coverage-excluded", 1)[1].split("</table>", 1)[0]
    assert 'data-namespace="plain"' in excluded
    assert "namespace plain has no label istio-injection" in excluded
    assert "narrows" in html and "sidecar.istio.io/inject" in html


def test_coverage_tab_answers_htmx_with_the_tab_only(admin_client, clusters):
    response = admin_client.get(
        "/clusters/alpha/validating/drifting/coverage/", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="tab">') and "<html" not in html
    assert "HX-Request" in response["Vary"]


# --- the cluster view ----------------------------------------------------------------


def _resource_row(html: str, label: str) -> tuple[int, int]:
    match = re.search(
        rf'<tr data-resource="{re.escape(label)}" data-count="(\d+)" '
        r'data-fail-closed="(\d+)"',
        html,
    )
    assert match, label
    return int(match[1]), int(match[2])


def test_cluster_coverage_counts_webhooks_per_resource(admin_client, clusters):
    html = admin_client.get("/clusters/alpha/coverage/").content.decode()
    # 7 webhooks on alpha, all on pods; the injector fails open.
    assert _resource_row(html, "v1/pods") == (7, 6)
    assert _resource_row(html, "v1/configmaps") == (0, 0)
    # Sorted by count: pods come first.
    first = re.search(r'<tr data-resource="([^"]+)" data-count', html)[1]
    assert first == "v1/pods"
    link = "/coverage/?cluster=alpha&amp;resource=v1%2Fpods&amp;operation=CREATE"
    assert link in html


def test_cluster_coverage_highlights_system_namespaces_and_pods(admin_client, clusters):
    html = admin_client.get("/clusters/alpha/coverage/").content.decode()
    system = html.split('id="system-namespaces"', 1)[1].split("</table>", 1)[0]
    assert 'data-namespace="kube-system" data-status="at risk"' in system
    row = system.split('data-namespace="kube-system"', 1)[1].split("</tr>", 1)[0]
    # Every webhook but the injector (limited to labelled namespaces).
    assert 'data-count="webhooks">6<' in row and 'data-count="fail-closed">6<' in row
    impact = html.split('id="high-impact"', 1)[1].split("</table>", 1)[0]
    assert 'data-resource="pods" data-status="at risk"' in impact
    assert 'data-resource="leases" data-status="clear"' in impact


def test_cluster_coverage_sorts_and_answers_htmx(admin_client, clusters):
    response = admin_client.get(
        "/clusters/alpha/coverage/?sort=resource", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="resources"')
    labels = re.findall(r'<tr data-resource="([^"]+)" data-count', html)
    assert labels == sorted(labels)
    assert "HX-Request" in response["Vary"]


def test_the_cluster_page_links_to_its_coverage(admin_client, clusters):
    html = admin_client.get("/clusters/alpha/").content.decode()
    assert 'href="/clusters/alpha/coverage/"' in html
    assert 'href="/coverage/"' in html


def _queries(client, url: str) -> int:
    coverage_cache_clear()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    cold = len(captured)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    assert len(captured) < cold  # the second visit is served from the cache
    return cold


def _add_configurations(cluster: Cluster, count: int) -> None:
    now = timezone.now()
    WebhookConfiguration.objects.bulk_create(
        WebhookConfiguration(
            cluster=cluster,
            kind=VALIDATING,
            name=f"more-{cluster.pk}-{i}",
            raw=factories.configuration(f"more-{cluster.pk}-{i}", webhooks=3),
            content_hash="h",
            webhook_count=3,
            fail_closed_count=3,
            first_seen=now,
            last_changed=now,
        )
        for i in range(count)
    )


@pytest.mark.parametrize(
    "url",
    [
        "/clusters/alpha/coverage/",
        "/coverage/?cluster=alpha&resource=v1/pods&operation=CREATE&namespace=mesh",
        "/clusters/alpha/validating/drifting/coverage/",
    ],
)
def test_queries_stay_constant_as_configurations_grow(admin_client, clusters, url):
    alpha = clusters[0]
    small = _queries(admin_client, url)
    _add_configurations(alpha, 30)
    assert _queries(admin_client, url) == small
    html = admin_client.get(url).content.decode()
    assert "more-" in html or "coverage-card" in html


def test_a_new_configuration_is_seen_without_restarting(admin_client, clusters):
    url = "/clusters/alpha/coverage/"
    assert _resource_row(admin_client.get(url).content.decode(), "v1/pods")[0] == 7
    _add_configurations(clusters[0], 1)
    assert _resource_row(admin_client.get(url).content.decode(), "v1/pods")[0] == 10
