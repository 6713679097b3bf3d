"""A cluster's settings page (approval policy, memberships) and its summary on
the cluster page, over HTTP."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from webhooks_ui.models import AuditEvent, Cluster, ClusterMembership

URL = "/clusters/prod/settings/"


@pytest.fixture
def prod(db) -> Cluster:
    return Cluster.objects.create(
        name="prod", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


@pytest.fixture
def other(db) -> Cluster:
    return Cluster.objects.create(
        name="other", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


def _as(cluster: Cluster | None, name: str, *roles: str, **extra) -> Client:
    user = User.objects.create_user(name, password="pw", **extra)
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def _post(client: Client, **changes):
    data = {"approvals_required": "2", "author_may_apply": "on", "change_window": ""}
    data.update(changes)
    return client.post(URL, {k: v for k, v in data.items() if v is not None})


def test_anonymous_is_sent_to_sign_in(client, prod):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")
    assert client.post(URL, {"approvals_required": "3"}).status_code == 302
    prod.refresh_from_db()
    assert prod.approvals_required == 1


def test_no_role_is_a_404(prod, other):
    client = _as(other, "olga", "admin")
    assert client.get(URL).status_code == 404
    assert _post(client).status_code == 404


@pytest.mark.parametrize("role", ["viewer", "editor", "approver", "operator"])
def test_any_other_role_is_a_403(prod, role):
    client = _as(prod, "pat", role)
    assert client.get(URL).status_code == 403
    assert _post(client, approvals_required="5").status_code == 403
    prod.refresh_from_db()
    assert prod.approvals_required == 1
    assert not AuditEvent.objects.filter(action="cluster.policy_changed").exists()


def test_an_admin_sees_the_form_with_the_current_policy(prod):
    prod.change_window = "Mon-Fri 09:00-17:00"
    prod.save()
    response = _as(prod, "ann", "admin").get(URL)
    assert response.status_code == 200
    text = response.text
    assert 'name="approvals_required"' in text and 'value="1"' in text
    assert 'name="author_may_apply"' in text
    assert 'value="Mon-Fri 09:00-17:00"' in text
    # Only the three policy fields are editable here.
    assert 'name="api_server_url"' not in text and 'name="name"' not in text


def test_a_window_in_a_time_zone_is_saved_and_shown_with_its_zone(prod):
    client = _as(prod, "ann", "admin")
    response = _post(client, change_window="Mon-Fri 09:00-17:00 Europe/Berlin")
    assert response.status_code == 302
    prod.refresh_from_db()
    assert prod.change_window == "Mon-Fri 09:00-17:00 Europe/Berlin"
    page = client.get(f"/clusters/{prod.name}/").text
    assert "change window" in page and "Mon-Fri 09:00-17:00 Europe/Berlin" in page


def test_an_unknown_time_zone_is_refused_under_the_field(prod):
    response = _post(
        _as(prod, "ann", "admin"), change_window="Mon-Fri 09:00-17:00 Europe/Berln"
    )
    assert response.status_code == 200
    error = response.text.split('id="error_change_window"')[1].split("</div>")[0]
    assert "&#x27;Europe/Berln&#x27; is not a time zone" in error
    prod.refresh_from_db()
    assert prod.change_window == ""


def test_saving_changes_the_policy_audits_it_and_redirects(prod):
    client = _as(prod, "ann", "admin")
    response = _post(client, change_window="Mon-Thu 09:00-17:00")
    assert response.status_code == 302 and response["Location"] == URL
    prod.refresh_from_db()
    assert prod.approvals_required == 2 and prod.author_may_apply
    assert prod.change_window == "Mon-Thu 09:00-17:00"
    event = AuditEvent.objects.get(action="cluster.policy_changed")
    assert event.actor_name == "ann" and event.cluster_name == "prod"
    assert event.detail["after"]["approvals_required"] == 2
    assert "Approval policy saved" in client.get(URL).text


def test_unchecking_author_may_apply(prod):
    prod.author_may_apply = True
    prod.save()
    _post(_as(prod, "ann", "admin"), author_may_apply=None)
    prod.refresh_from_db()
    assert prod.author_may_apply is False


def test_a_bad_change_window_shows_the_parsers_words_under_the_field(prod):
    response = _post(_as(prod, "ann", "admin"), change_window="weekdays 9-5")
    assert response.status_code == 200
    text = response.text
    error = text.split('id="error_change_window"')[1].split("</div>")[0]
    assert "&#x27;weekdays 9-5&#x27; is not a window" in error
    assert "is-invalid" in text.split('name="change_window"')[1].split(">")[0]
    # The typed text stays in the field; nothing was saved or logged.
    assert 'value="weekdays 9-5"' in text
    prod.refresh_from_db()
    assert prod.change_window == "" and prod.approvals_required == 1
    assert not AuditEvent.objects.filter(action="cluster.policy_changed").exists()


@pytest.mark.parametrize("value", ["0", "11", "two", ""])
def test_approvals_out_of_range_are_refused_on_the_field(prod, value):
    response = _post(_as(prod, "ann", "admin"), approvals_required=value)
    assert response.status_code == 200
    assert 'id="error_approvals_required"' in response.text
    prod.refresh_from_db()
    assert prod.approvals_required == 1


def test_user_text_is_escaped(prod):
    response = _post(
        _as(prod, "ann", "admin"), change_window="<script>alert(1)</script>"
    )
    assert "<script>alert(1)</script>" not in response.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text


def test_memberships_are_listed_by_holder(prod):
    admin = _as(prod, "ann", "admin", "operator")
    User.objects.create_user("bea")
    ClusterMembership.objects.create(
        cluster=prod, user=User.objects.get(username="bea"), role="viewer"
    )
    group = Group.objects.create(name="sre")
    ClusterMembership.objects.create(cluster=prod, group=group, role="approver")
    text = admin.get(URL).text
    memberships = text.split('id="memberships"')[1].split("</table>")[0]
    ann = memberships.split('data-holder="user:ann"')[1].split("</tr>")[0]
    assert ann.index(">operator<") < ann.index(">admin<")
    assert 'data-holder="user:bea"' in memberships
    assert 'data-holder="group:sre"' in memberships and ">approver<" in memberships
    # Not staff: no link into the Django admin.
    assert 'id="admin-memberships"' not in text


def test_staff_get_a_link_to_the_admin(prod):
    text = _as(prod, "sam", "admin", is_staff=True).get(URL).text
    assert f'href="/admin/webhooks_ui/cluster/{prod.pk}/change/"' in text


def test_superusers_may_edit_any_cluster(prod):
    client = _as(None, "root", is_superuser=True)
    assert client.get(URL).status_code == 200
    assert _post(client, approvals_required="4").status_code == 302
    prod.refresh_from_db()
    assert prod.approvals_required == 4


def test_settings_is_get_or_post_only(prod):
    assert _as(prod, "ann", "admin").delete(URL).status_code == 405


# --- the summary on the cluster page ----------------------------------------------


def test_cluster_page_shows_the_policy_read_only(prod):
    prod.approvals_required = 2
    prod.change_window = "daily 22:00-02:00"
    prod.save()
    text = _as(prod, "vic", "viewer").get("/clusters/prod/").text
    summary = text.split('id="policy-summary"')[1].split("</p>")[0]
    assert "<strong>2</strong> approvals required" in summary
    assert "authors may not apply" in summary
    assert "daily 22:00-02:00" in summary
    assert "cluster-settings-link" not in summary


def test_cluster_page_links_admins_to_settings(prod):
    text = _as(prod, "ann", "admin").get("/clusters/prod/").text
    assert 'id="cluster-settings-link"' in text and f'href="{URL}"' in text
