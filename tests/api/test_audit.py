"""The audit log through the API: who sees which events, filters, exports, and
no way to write."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.api.conftest import error_of
from webhooks_ui.models import AuditEvent, Cluster
from webhooks_ui.services.audit import audit_record

AUDIT = "/api/v1/audit/"
EXPORT = "/api/v1/audit/export/"


@pytest.fixture
def events(clusters, admin_user):
    """Known events besides the syncs: on alpha, on beta, and a sign-in."""
    alpha, beta = clusters
    made = {
        "alpha": audit_record(
            action="change.applied",
            actor=admin_user,
            cluster=alpha,
            kind="ValidatingWebhookConfiguration",
            name="drifting",
            summary="=HYPERLINK(evil) applied",
            detail={"request": {"verb": "replace"}},
        ),
        "beta": audit_record(
            action="change.proposed",
            actor=admin_user,
            cluster=beta,
            kind="MutatingWebhookConfiguration",
            name="sidecar",
            summary="proposed",
        ),
        "login": audit_record(
            action="user.login", actor=admin_user, summary="signed in"
        ),
    }
    return made


def _export_rows(response) -> list[list[str]]:
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))


def test_superuser_sees_every_event_newest_first(admin_api, events):
    body = admin_api.get(AUDIT).json()
    ids = [e["id"] for e in body["results"]]
    assert ids[:3] == [events["login"].pk, events["beta"].pk, events["alpha"].pk]
    assert body["count"] == AuditEvent.objects.count()
    first = body["results"][0]
    assert first["cluster"] == "" and first["action"] == "user.login"
    assert set(first) == {
        "id",
        "at",
        "actor",
        "action",
        "cluster",
        "kind",
        "name",
        "change",
        "summary",
        "detail",
    }


def test_others_see_only_their_clusters_events_and_no_sign_ins(
    as_user, role_user, nobody, events
):
    viewer = as_user(role_user("viewer"))
    body = viewer.get(AUDIT).json()
    assert {e["cluster"] for e in body["results"]} == {"alpha"}
    assert events["login"].pk not in [e["id"] for e in body["results"]]
    hidden = viewer.get(AUDIT + "?cluster=beta")
    assert hidden.status_code == 400  # exactly as for a cluster that does not exist
    unknown = error_of(viewer.get(AUDIT + "?cluster=no-such"))["message"]
    assert error_of(hidden)["message"] == unknown.replace("no-such", "beta")
    rows = _export_rows(viewer.get(EXPORT))
    assert {row[3] for row in rows[1:]} == {"alpha"}
    assert as_user(nobody).get(AUDIT).json()["count"] == 0
    assert _export_rows(as_user(nobody).get(EXPORT)) == [
        ["at", "actor", "action", "cluster", "kind", "name", "change", "summary"]
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cluster=alpha&action=change.applied", ["alpha"]),
        ("user=root&kind=mutating", ["beta"]),
        ("kind=ValidatingWebhookConfiguration&name=drifting", ["alpha"]),
        ("action=user.login", ["login"]),
        ("user=somebody-else", []),
    ],
)
def test_filters(admin_api, events, query, expected):
    body = admin_api.get(f"{AUDIT}?{query}").json()
    assert [e["id"] for e in body["results"]] == [events[k].pk for k in expected]


def test_time_and_change_filters(admin_api, events):
    now = datetime.now(UTC)
    later = (now + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    earlier = (now - timedelta(hours=1)).isoformat()
    assert admin_api.get(AUDIT, {"since": later}).json()["count"] == 0
    assert admin_api.get(AUDIT, {"until": earlier}).json()["count"] == 0
    in_window = admin_api.get(AUDIT, {"since": earlier, "until": later}).json()
    assert in_window["count"] == AuditEvent.objects.count()
    assert admin_api.get(AUDIT, {"change": 12345}).json()["count"] == 0
    today = now.date().isoformat()  # plain dates, as the audit page sends them
    assert admin_api.get(AUDIT, {"until": today}).json()["count"] == in_window["count"]
    assert admin_api.get(AUDIT, {"since": today}).json()["count"] == in_window["count"]
    by_configuration = admin_api.get(AUDIT, {"configuration": "validating/drifting"})
    assert [e["id"] for e in by_configuration.json()["results"]] == [events["alpha"].pk]
    for bad in [{"since": "yesterday"}, {"until": "9999-12-31T23:59:59-05:00"}]:
        response = admin_api.get(AUDIT, bad)
        assert response.status_code == 400
        assert error_of(response)["code"] == "invalid"
    assert admin_api.get(EXPORT, {"since": "nope"}).status_code == 400


def test_csv_export_with_the_same_filters_and_safe_cells(admin_api, events):
    response = admin_api.get(EXPORT + "?format=csv&cluster=alpha")
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith("attachment; filename=")
    rows = _export_rows(response)
    assert rows[0] == [
        "at",
        "actor",
        "action",
        "cluster",
        "kind",
        "name",
        "change",
        "summary",
    ]
    applied = [row for row in rows if row[2] == "change.applied"]
    assert applied == [
        [
            events["alpha"].at.isoformat(),
            "root",
            "change.applied",
            "alpha",
            "ValidatingWebhookConfiguration",
            "drifting",
            "",
            "'=HYPERLINK(evil) applied",  # never a formula in a spreadsheet
        ]
    ]
    assert {row[3] for row in rows[1:]} == {"alpha"}


def test_json_export_keeps_the_detail(admin_api, events):
    response = admin_api.get(EXPORT, {"format": "json", "action": "change.applied"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = json.loads(b"".join(response.streaming_content))
    assert [e["id"] for e in body] == [events["alpha"].pk]
    assert body[0]["detail"] == {"request": {"verb": "replace"}}


def test_export_format_must_be_known(admin_api, events):
    response = admin_api.get(EXPORT, {"format": "xml"})
    assert response.status_code == 400
    assert error_of(response)["details"] == {"format": ["Use csv or json."]}


@pytest.mark.parametrize("url", [AUDIT, EXPORT])
def test_the_log_is_read_only(admin_api, events, url):
    count = AuditEvent.objects.count()
    for method in ("post", "put", "patch", "delete"):
        response = getattr(admin_api, method)(url, {}, format="json")
        assert response.status_code == 405, method
        assert error_of(response)["code"] == "method_not_allowed"
    assert AuditEvent.objects.count() == count


@pytest.mark.parametrize("url", [AUDIT, EXPORT, EXPORT + "?format=csv"])
def test_anonymous_is_401(api, url, db):
    response = api.get(url)
    assert response.status_code == 401
    assert error_of(response)["code"] == "not_authenticated"


def test_events_of_a_removed_cluster_stay_for_superusers(admin_api, events, clusters):
    Cluster.objects.filter(pk=clusters[1].pk).delete()
    ids = [e["id"] for e in admin_api.get(AUDIT + "?name=sidecar").json()["results"]]
    assert events["beta"].pk in ids
