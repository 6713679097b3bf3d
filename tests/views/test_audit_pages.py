"""The audit log page and its CSV/JSON export, over HTTP."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.test import Client

from webhooks_ui.models import (
    AuditEvent,
    ChangeRequest,
    Cluster,
    ClusterMembership,
    WebhookConfiguration,
)
from webhooks_ui.services.audit import Action, audit_record

VALIDATING = "ValidatingWebhookConfiguration"


def _cluster(name: str) -> Cluster:
    return Cluster.objects.create(
        name=name, api_server_url="https://127.0.0.1:1", auth_method="token"
    )


def _user(name: str, cluster: Cluster | None = None, role: str = "viewer") -> User:
    user = User.objects.create_user(name, password="pw")
    if cluster is not None:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


def _event(at: str, **fields) -> AuditEvent:
    """An event at a given UTC time (``audit_record`` stamps now; rows are
    append-only, so the time is set at creation)."""
    defaults = {"actor_name": "system", "summary": "something", "detail": {}}
    return AuditEvent.objects.create(
        at=datetime.fromisoformat(at).replace(tzinfo=UTC), **{**defaults, **fields}
    )


@pytest.fixture
def world(db):
    alpha, beta = _cluster("alpha"), _cluster("beta")
    ada = _user("ada", alpha, "editor")
    vic = _user("vic", alpha, "viewer")
    root = User.objects.create_user("root", password="pw", is_superuser=True)
    WebhookConfiguration.objects.create(
        cluster=alpha,
        kind=VALIDATING,
        name="checks",
        content_hash="x",
        raw={},
        first_seen=datetime(2026, 1, 1, tzinfo=UTC),
        last_changed=datetime(2026, 1, 1, tzinfo=UTC),
    )
    change = ChangeRequest.objects.create(
        cluster=alpha,
        author=ada,
        state="applied",
        action="update",
        kind=VALIDATING,
        name="checks",
        title="t",
    )
    events = {
        "applied": _event(
            "2026-03-02T10:00:00",
            actor=ada,
            actor_name="ada",
            action=Action.CHANGE_APPLIED,
            cluster=alpha,
            cluster_name="alpha",
            configuration_kind=VALIDATING,
            configuration_name="checks",
            change=change,
            summary="Applied <b>shorter</b> timeout",
            detail={
                "sent": {"metadata": {"name": "checks"}, "note": "</pre><script>"},
                "answer": {"code": 200},
            },
        ),
        "gone": _event(
            "2026-03-01T09:00:00",
            actor_name="ada",
            action=Action.CHANGE_PROPOSED,
            cluster=alpha,
            cluster_name="alpha",
            configuration_kind=VALIDATING,
            configuration_name="removed-config",
            summary='=HYPERLINK("http://evil")',
        ),
        "sync": _event(
            "2026-02-28T23:59:00",
            action=Action.SYNC_SUCCEEDED,
            cluster=alpha,
            cluster_name="alpha",
            summary="+1 ~0 -0",
        ),
        "beta": _event(
            "2026-03-02T11:00:00",
            actor_name="bob",
            action=Action.SYNC_FAILED,
            cluster=beta,
            cluster_name="beta",
            summary="beta sync failed",
        ),
        "login": _event(
            "2026-03-02T12:00:00",
            actor_name="vic",
            action=Action.USER_LOGIN,
            summary="vic signed in",
        ),
    }
    return {
        "alpha": alpha,
        "ada": ada,
        "vic": vic,
        "root": root,
        "change": change,
        "events": events,
    }


def _as(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _rows(response) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-event="(\d+)"', response.text)]


def _ids(world, *names) -> list[int]:
    return [world["events"][name].pk for name in names]


@pytest.mark.parametrize("url", ["/audit/", "/audit/export/?format=csv"])
def test_anonymous_is_sent_to_sign_in(client, db, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_events_of_visible_clusters_newest_first(world):
    response = _as(world["vic"]).get("/audit/")
    assert response.status_code == 200
    # Not beta's (no role there), not the sign-in (no cluster: superusers only).
    assert _rows(response) == _ids(world, "applied", "gone", "sync")


def test_superusers_see_everything_including_sign_ins(world):
    rows = _rows(_as(world["root"]).get("/audit/"))
    # force_login signs in too (an event of now, on top); then by time.
    mine = [pk for pk in rows if pk in _ids(world, *world["events"])]
    assert mine == _ids(world, "login", "beta", "applied", "gone", "sync")


def test_no_role_sees_nothing(world, db):
    nobody = User.objects.create_user("nobody")
    response = _as(nobody).get("/audit/")
    assert _rows(response) == []
    assert "No event matches" in response.text


def test_a_row_links_its_change_and_existing_configuration(world):
    text = _as(world["vic"]).get("/audit/").text
    applied = world["events"]["applied"]
    row = text.split(f'data-event="{applied.pk}"')[1].split("</tr>")[0]
    assert "2026-03-02 10:00:00" in row and ">ada<" in row
    assert "change.applied" in row
    assert f'href="/changes/{world["change"].pk}/"' in row
    assert 'href="/clusters/alpha/validating/checks/"' in row
    gone = world["events"]["gone"]
    gone_row = text.split(f'data-event="{gone.pk}"')[1].split("</tr>")[0]
    assert (
        "removed-config" in gone_row and "/validating/removed-config/" not in gone_row
    )


def test_summary_and_detail_are_escaped(world):
    text = _as(world["vic"]).get("/audit/").text
    assert "<b>shorter</b>" not in text
    assert "Applied &lt;b&gt;shorter&lt;/b&gt; timeout" in text
    assert "</pre><script>" not in text
    assert "<details" in text and "&lt;/pre&gt;&lt;script&gt;" in text
    # The JSON detail is pretty-printed.
    assert "&quot;answer&quot;: {" in text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cluster=alpha", ["applied", "gone", "sync"]),
        ("user=AD", ["applied", "gone"]),
        ("configuration=removed", ["gone"]),
        ("configuration=validating/checks", ["applied"]),
        ("configuration=validating/check", []),
        ("action=sync.succeeded", ["sync"]),
        ("since=2026-03-01", ["applied", "gone"]),
        ("until=2026-02-28", ["sync"]),
        ("since=2026-03-01&until=2026-03-01", ["gone"]),
    ],
)
def test_filters(world, query, expected):
    response = _as(world["vic"]).get("/audit/?" + query)
    assert _rows(response) == _ids(world, *expected)


def test_filter_by_change(world):
    response = _as(world["vic"]).get(f"/audit/?change={world['change'].pk}")
    assert _rows(response) == _ids(world, "applied")


def test_an_invisible_cluster_is_no_filter_choice(world):
    response = _as(world["vic"]).get("/audit/?cluster=beta")
    assert '<option value="beta"' not in response.text
    assert world["events"]["beta"].pk not in _rows(response)


def test_action_filter_offers_every_action(world):
    text = _as(world["vic"]).get("/audit/").text
    for action in [*Action.all(), "cluster.policy_changed"]:
        assert f'<option value="{action}"' in text


def test_htmx_gets_the_results_and_fresh_export_links(world):
    response = _as(world["vic"]).get(
        "/audit/?action=sync.succeeded", HTTP_HX_REQUEST="true"
    )
    assert response.text.lstrip().startswith('<div id="results">')
    assert 'hx-swap-oob="true"' in response.text
    assert "action=sync.succeeded&amp;format=csv" in response.text
    assert "HX-Request" in response["Vary"]


def test_export_links_keep_the_filters(world):
    text = _as(world["vic"]).get("/audit/?user=ada&page=1").text
    assert 'href="/audit/export/?user=ada&amp;format=csv"' in text
    assert 'href="/audit/export/?user=ada&amp;format=json"' in text


def test_pagination(world):
    for index in range(60):
        audit_record(
            action=Action.SYNC_SUCCEEDED, cluster=world["alpha"], summary=f"s{index}"
        )
    client = _as(world["vic"])
    first = client.get("/audit/")
    assert len(_rows(first)) == 50 and "page 1 of 2" in first.text
    assert len(_rows(client.get("/audit/?page=2"))) == 63 - 50


def test_query_count_does_not_grow_with_rows(world):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = _as(world["vic"])
    with CaptureQueriesContext(connection) as few:
        client.get("/audit/")
    for index in range(20):
        audit_record(
            action=Action.CHANGE_PROPOSED,
            cluster=world["alpha"],
            change=world["change"],
            summary=f"p{index}",
        )
    with CaptureQueriesContext(connection) as many:
        client.get("/audit/")
    assert len(many) == len(few)


# --- export ------------------------------------------------------------------------


def _csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(body)))


def test_csv_export_with_filters(world):
    response = _as(world["vic"]).get("/audit/export/?format=csv&cluster=alpha")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith('attachment; filename="audit-')
    rows = _csv(response)
    header = ["at", "actor", "action", "cluster", "kind", "name", "change", "summary"]
    assert rows[0] == header
    assert [row[2] for row in rows[1:]] == [
        "change.applied",
        "change.proposed",
        "sync.succeeded",
    ]
    applied = dict(zip(header, rows[1], strict=True))
    assert applied["at"] == "2026-03-02T10:00:00+00:00"
    assert applied["actor"] == "ada" and applied["cluster"] == "alpha"
    assert applied["kind"] == VALIDATING and applied["name"] == "checks"
    assert applied["change"] == str(world["change"].pk)


def test_csv_export_guards_against_formulas(world):
    rows = _csv(_as(world["vic"]).get("/audit/export/?format=csv"))
    summaries = [row[7] for row in rows[1:]]
    assert '\'=HYPERLINK("http://evil")' in summaries
    assert "'+1 ~0 -0" in summaries
    assert not any(cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r)


def test_json_export_adds_detail(world):
    response = _as(world["vic"]).get("/audit/export/?format=json&user=ada")
    assert response["Content-Type"] == "application/json"
    records = json.loads(b"".join(response.streaming_content))
    assert [r["action"] for r in records] == ["change.applied", "change.proposed"]
    assert records[0]["detail"]["answer"] == {"code": 200}
    assert records[0]["change"] == world["change"].pk
    assert records[1]["summary"] == '=HYPERLINK("http://evil")'  # JSON is data


def test_export_is_limited_to_what_the_user_sees(world):
    records = json.loads(
        b"".join(_as(world["vic"]).get("/audit/export/?format=json").streaming_content)
    )
    assert {r["cluster"] for r in records} == {"alpha"}


def test_export_refuses_unknown_formats_and_bad_filters(world):
    client = _as(world["vic"])
    assert client.get("/audit/export/?format=xml").status_code == 400
    assert client.get("/audit/export/?format=csv&since=yesterday").status_code == 400


def test_export_of_an_empty_log_is_just_the_header(db):
    rows = _csv(_as(User.objects.create_user("x")).get("/audit/export/"))
    assert rows == [
        ["at", "actor", "action", "cluster", "kind", "name", "change", "summary"]
    ]
