"""The change request list and the navigation's change counts, over HTTP."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from webhooks_ui.models import ChangeRequest, ChangeReview, Cluster, ClusterMembership

VALIDATING = "ValidatingWebhookConfiguration"
MUTATING = "MutatingWebhookConfiguration"


def _cluster(name: str, approvals: int = 1) -> Cluster:
    return Cluster.objects.create(
        name=name,
        api_server_url="https://127.0.0.1:1",
        auth_method="token",
        approvals_required=approvals,
    )


def _member(name: str, cluster: Cluster | None, *roles: str) -> User:
    user = User.objects.filter(username=name).first() or User.objects.create_user(
        name, password="pw"
    )
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


def _change(cluster, author, state, *, title="", name="checks", kind=VALIDATING):
    return ChangeRequest.objects.create(
        cluster=cluster,
        author=author,
        state=state,
        action="update",
        kind=kind,
        name=name,
        title=title,
    )


@pytest.fixture
def world(db):
    alpha, beta = _cluster("alpha", approvals=2), _cluster("beta")
    people = {
        "ada": _member("ada", alpha, "editor"),
        "rui": _member("rui", alpha, "approver"),
        "vic": _member("vic", alpha, "viewer"),
        "bob": _member("bob", beta, "editor", "approver"),
    }
    _member("rui", beta, "viewer")
    changes = {
        "proposed": _change(
            alpha, people["ada"], "in_review", title="Shorter <script>x()</script>"
        ),
        "approved": _change(
            alpha, people["ada"], "approved", title="Approved one", name="drifting"
        ),
        "draft": _change(alpha, people["ada"], "draft", title="Secret draft"),
        "applied": _change(alpha, people["ada"], "applied", title="Done already"),
        "beta": _change(
            beta, people["bob"], "in_review", title="Beta change", kind=MUTATING
        ),
        "bob_draft": _change(beta, people["bob"], "draft", title="Bob draft"),
    }
    ChangeReview.objects.create(
        change=changes["approved"],
        reviewer=people["rui"],
        verdict="approve",
        change_version=1,
    )
    return {"alpha": alpha, "beta": beta, **people, "changes": changes}


def _as(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _rows(response) -> set[int]:
    import re

    return {int(pk) for pk in re.findall(r'data-change="(\d+)"', response.text)}


def _pk(world, *names) -> set[int]:
    return {world["changes"][name].pk for name in names}


def test_anonymous_is_sent_to_sign_in(client, db):
    response = client.get("/changes/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=/changes/")


def test_all_shows_visible_clusters_and_never_other_peoples_drafts(world):
    rui = _as(world["rui"])
    response = rui.get("/changes/")
    assert response.status_code == 200
    # rui sees alpha and beta (viewer there), but no one's drafts.
    assert _rows(response) == _pk(world, "proposed", "approved", "applied", "beta")
    vic = _as(world["vic"])
    assert _rows(vic.get("/changes/?tab=all")) == _pk(
        world, "proposed", "approved", "applied"
    )
    # The author sees her own draft among the rest.
    ada = _as(world["ada"])
    assert _rows(ada.get("/changes/")) == _pk(
        world, "proposed", "approved", "draft", "applied"
    )


def test_awaiting_my_review_lists_what_i_could_still_approve(world):
    rui = _as(world["rui"])
    response = rui.get("/changes/?tab=review")
    # Not "approved" (in review only, and already approved by rui), not beta
    # (rui is only a viewer there).
    assert _rows(response) == _pk(world, "proposed")
    # An editor is no reviewer; an author never reviews their own change.
    assert _rows(_as(world["vic"]).get("/changes/?tab=review")) == set()
    assert _rows(_as(world["ada"]).get("/changes/?tab=review")) == set()
    assert _rows(_as(world["bob"]).get("/changes/?tab=review")) == set()


def test_my_changes_open_and_closed(world):
    response = _as(world["ada"]).get("/changes/?tab=mine")
    assert _rows(response) == _pk(world, "proposed", "approved", "draft", "applied")
    assert _rows(_as(world["rui"]).get("/changes/?tab=mine")) == set()


def test_no_role_sees_no_change(world, nobody):
    response = _as(nobody).get("/changes/")
    assert response.status_code == 200
    assert _rows(response) == set()
    assert "No change request matches" in response.text


def test_rows_show_state_action_author_and_approvals_against_the_policy(world):
    response = _as(world["rui"]).get("/changes/")
    approved = world["changes"]["approved"]
    row = response.text.split(f'data-change="{approved.pk}"')[1].split("</tr>")[0]
    assert f'href="/changes/{approved.pk}/"' in row
    assert "Approved one" in row and "drifting" in row and "alpha" in row
    assert 'data-state="approved"' in row and ">update<" in row
    assert "ada" in row and "1 of 2" in row


def test_an_approval_by_the_author_or_dismissed_does_not_count(world):
    change = world["changes"]["proposed"]
    ChangeReview.objects.bulk_create(
        [
            # bulk_create skips save(): the kind of row only a bug could leave.
            ChangeReview(
                change=change,
                reviewer=world["ada"],
                verdict="approve",
                change_version=1,
            ),
        ]
    )
    from django.utils import timezone

    ChangeReview.objects.create(
        change=change,
        reviewer=world["rui"],
        verdict="approve",
        change_version=1,
        dismissed_at=timezone.now(),
    )
    response = _as(world["vic"]).get("/changes/")
    row = response.text.split(f'data-change="{change.pk}"')[1].split("</tr>")[0]
    assert "0 of 2" in row


def test_titles_are_escaped(world):
    response = _as(world["ada"]).get("/changes/")
    assert "<script>x()</script>" not in response.text
    assert "Shorter &lt;script&gt;x()&lt;/script&gt;" in response.text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("state=approved", {"approved"}),
        ("state=approved&state=applied", {"approved", "applied"}),
        ("cluster=beta", {"beta"}),
        ("author=bo", {"beta"}),
        ("name=drift", {"approved"}),
        ("tab=review&cluster=beta", set()),
    ],
)
def test_filters(world, query, expected):
    response = _as(world["rui"]).get("/changes/?" + query)
    assert _rows(response) == _pk(world, *expected)


def test_a_cluster_i_cannot_see_is_not_a_filter_choice(world):
    response = _as(world["vic"]).get("/changes/?cluster=beta")
    assert '<option value="beta"' not in response.text
    # An unknown choice is ignored rather than leaking anything.
    assert world["changes"]["beta"].pk not in _rows(response)


def test_htmx_gets_only_the_results(world):
    response = _as(world["rui"]).get("/changes/?state=approved", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="results">')
    assert "<nav" not in response.text.split("pagination")[0]
    assert _rows(response) == _pk(world, "approved")
    assert "HX-Request" in response["Vary"]


def test_pagination(world):
    for index in range(55):
        _change(world["alpha"], world["ada"], "in_review", title=f"bulk {index}")
    client = _as(world["vic"])
    first = client.get("/changes/")
    assert len(_rows(first)) == 50 and "page 1 of 2" in first.text
    second = client.get("/changes/?page=2")
    assert len(_rows(second)) == 58 - 50


def test_query_count_does_not_grow_with_rows(world, django_assert_max_num_queries):
    client = _as(world["rui"])
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get("/changes/")
    for index in range(20):
        _change(world["alpha"], world["ada"], "approved", title=f"more {index}")
    with CaptureQueriesContext(connection) as many:
        client.get("/changes/")
    assert len(many) == len(few)


# --- navigation ------------------------------------------------------------------


def test_nav_counts_awaiting_and_mine(world):
    rui = _as(world["rui"]).get("/").text
    assert 'id="nav-awaiting"' in rui
    assert rui.split('id="nav-awaiting"')[1].split("<span")[0].endswith(">1")
    assert 'id="nav-mine"' not in rui
    ada = _as(world["ada"]).get("/").text
    assert 'id="nav-awaiting"' not in ada
    # Open: in review, approved, draft (applied is closed).
    assert ada.split('id="nav-mine"')[1].split("<span")[0].endswith(">3")
    assert 'href="/changes/"' in ada and 'href="/audit/"' in ada
    assert 'href="/drafts/"' in ada


def test_nav_counts_follow_the_workflow(world):
    ChangeReview.objects.create(
        change=world["changes"]["proposed"],
        reviewer=world["rui"],
        verdict="approve",
        change_version=1,
    )
    assert 'id="nav-awaiting"' not in _as(world["rui"]).get("/").text


def test_sign_in_page_costs_no_query(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/login/")
    assert response.status_code == 200
    assert "nav-awaiting" not in response.text


def test_htmx_partials_do_not_count(world, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = _as(world["rui"])
    with CaptureQueriesContext(connection) as page:
        client.get("/changes/")
    with CaptureQueriesContext(connection) as partial:
        client.get("/changes/", HTTP_HX_REQUEST="true")
    counts = [q["sql"] for q in page if "COUNT" in q["sql"].upper()]
    partial_counts = [q["sql"] for q in partial if "COUNT" in q["sql"].upper()]
    assert len(partial_counts) < len(counts)
