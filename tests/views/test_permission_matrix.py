"""The permission matrix: every page and action, for every kind of visitor.

For each route of the web UI (a test fails when a new route is not listed
here), anonymous visitors are sent to sign in, a user without any role on the
cluster cannot tell it exists (404), a user lacking the needed role is refused
(403), and a user holding it gets through (never 403/404/500). Denied users
go first, so an allowed action's side effects cannot hide a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from webhooks_ui.domain.manifest import dump_yaml, load_documents
from webhooks_ui.models import ChangeRequest, ClusterMembership
from webhooks_ui.services import changes, drafts, tokens

CONFIG = "/clusters/alpha/validating/drifting/"
ROLES = ("viewer", "editor", "approver", "operator", "admin")
# Who: the roles above (each alone on alpha), "author" (editor on alpha who
# wrote the draft and the change request), and "nobody" (no role anywhere).
EVERYONE = ("nobody", *ROLES, "author")


@dataclass(frozen=True)
class Rule:
    method: str
    url: str
    # Who gets through; everyone else with a role on alpha gets ``denied``.
    allowed: tuple[str, ...]
    # What a user with a role but not allowed gets (403, or 404 for objects
    # they may not even know about, such as someone else's draft).
    denied: int = 403
    # What "nobody" gets: 404 for anything on alpha; pages not tied to a
    # cluster are open to any signed-in user.
    nobody: int = 404
    data: dict | None = None


READERS = (*ROLES, "author")
SIGNED_IN = ("nobody", *READERS)

MATRIX: dict[str, Rule] = {
    "overview": Rule("GET", "/", SIGNED_IN),
    "finding-list": Rule("GET", "/findings/", SIGNED_IN),
    "coverage-explorer": Rule("GET", "/coverage/", SIGNED_IN),
    "draft-list": Rule("GET", "/drafts/", SIGNED_IN),
    "change-list": Rule("GET", "/changes/", SIGNED_IN),
    "audit-list": Rule("GET", "/audit/", SIGNED_IN),
    "audit-export": Rule("GET", "/audit/export/?format=csv", SIGNED_IN),
    "account-tokens": Rule("GET", "/account/tokens/", SIGNED_IN),
    "account-token-revoke": Rule(
        "POST", "/account/tokens/{token}/revoke/", ("author",), denied=404
    ),
    "cluster-detail": Rule("GET", "/clusters/alpha/", READERS),
    "cluster-sync-status": Rule("GET", "/clusters/alpha/sync/status/", READERS),
    "cluster-coverage": Rule("GET", "/clusters/alpha/coverage/", READERS),
    "cluster-sync": Rule("POST", "/clusters/alpha/sync/", ("operator",)),
    "cluster-test-connection": Rule(
        "POST", "/clusters/alpha/test-connection/", ("admin",)
    ),
    "cluster-settings": Rule("GET", "/clusters/alpha/settings/", ("admin",)),
    "cluster-membership-grant": Rule(
        "POST",
        "/clusters/alpha/settings/memberships/",
        ("admin",),
        data={"holder_kind": "user", "holder_name": "nobody", "role": "viewer"},
    ),
    "cluster-membership-revoke": Rule(
        "POST", "/clusters/alpha/settings/memberships/{membership}/revoke/", ("admin",)
    ),
    "configuration-detail": Rule("GET", CONFIG, READERS),
    "configuration-yaml": Rule("GET", CONFIG + "yaml/", READERS),
    "configuration-history": Rule("GET", CONFIG + "history/", READERS),
    "configuration-coverage": Rule("GET", CONFIG + "coverage/", READERS),
    "configuration-compare": Rule("GET", "/compare/validating/drifting/", READERS),
    "draft-new": Rule(
        "POST", "/clusters/alpha/drafts/new/validating/", ("editor", "author")
    ),
    "draft-edit": Rule("POST", CONFIG + "edit/", ("editor", "author")),
    "draft-delete": Rule("POST", CONFIG + "delete/", ("editor", "author")),
    "draft-clone": Rule(
        "POST", CONFIG + "clone/", ("editor", "author"), data={"target": "alpha"}
    ),
    "revision-restore": Rule(
        "POST", CONFIG + "history/1/restore/", ("editor", "author")
    ),
    # Drafts are private: anyone but their author cannot tell they exist.
    "draft-detail": Rule("GET", "/drafts/{draft}/", ("author",), denied=404),
    "draft-validate": Rule(
        "POST", "/drafts/{draft}/validate/", ("author",), 404, data={"text": "x: 1"}
    ),
    "draft-form": Rule("POST", "/drafts/{draft}/form/", ("author",), denied=404),
    "draft-dry-run": Rule("POST", "/drafts/{draft}/dry-run/", ("author",), 404),
    "draft-discard": Rule("POST", "/drafts/{draft}/discard/", ("author",), 404),
    # A change request in review: visible to anyone who can see the cluster.
    "change-detail": Rule("GET", "/changes/{change}/", READERS),
    "change-propose": Rule(
        "POST", "/changes/{change}/propose/", ("author",), data={"title": "t"}
    ),
    "change-review": Rule(
        "POST", "/changes/{change}/review/", ("approver",), data={"verdict": "approve"}
    ),
    "change-apply": Rule("POST", "/changes/{change}/apply/", ("operator",)),
    "change-reopen": Rule("POST", "/changes/{change}/reopen/", ("author",)),
    "change-withdraw": Rule("POST", "/changes/{change}/withdraw/", ("author",)),
    "change-rebase": Rule("POST", "/changes/{change}/rebase/", ("author",)),
    # Anyone who sees it may promote; the editor role is checked per target.
    "change-promote": Rule(
        "POST", "/changes/{change}/promote/", READERS, data={"target": "beta"}
    ),
}
# Sign-in pages are for everyone; the API has its own matrix (tests/api).
NOT_IN_MATRIX = {"login", "logout"}


def _routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name


def test_every_web_route_is_in_the_matrix():
    names = {
        name
        for route, name in _routes(get_resolver().url_patterns)
        if not route.startswith(("admin/", "api/"))
    }
    assert names - NOT_IN_MATRIX - set(MATRIX) == set()
    assert set(MATRIX) - names == set()


@pytest.fixture
def world(clusters):
    alpha = clusters[0]
    users: dict[str, User] = {}
    for name in EVERYONE:
        users[name] = User.objects.create_user(name)
    for role in ROLES:
        ClusterMembership.objects.create(cluster=alpha, user=users[role], role=role)
    ClusterMembership.objects.create(cluster=alpha, user=users["author"], role="editor")
    author = users["author"]
    configuration = alpha.configurations.get(name="drifting")
    change = drafts.draft_start(
        user=author, configuration=configuration, cluster=alpha, action="update"
    )
    obj = load_documents(change.proposed_text)[0]
    obj["webhooks"][0]["timeoutSeconds"] = 9
    drafts.draft_save(draft=change, user=author, text=dump_yaml(obj))
    changes.change_propose(change=change, user=author, title="Proposed")
    draft = drafts.draft_start(
        user=author,
        configuration=alpha.configurations.get(name="only-alpha"),
        cluster=alpha,
        action="update",
    )
    token = tokens.api_token_create(user=author, name="ci").token
    ids = {
        "change": change.pk,
        "draft": draft.pk,
        "token": token.pk,
        "membership": ClusterMembership.objects.get(user=users["viewer"]).pk,
    }
    return users, ids


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_permission_matrix(name, world):
    users, ids = world
    rule = MATRIX[name]
    url = rule.url.format(**ids)
    assert ChangeRequest.objects.filter(pk=ids["change"]).exists()

    anonymous = Client().generic(rule.method, url, **_body(rule))
    assert anonymous.status_code == 302, (name, "anonymous")
    assert anonymous["Location"].startswith("/login/"), name

    ordered = sorted(EVERYONE, key=lambda who: who in rule.allowed)
    for who in ordered:
        client = Client()
        client.force_login(users[who])
        status = client.generic(rule.method, url, **_body(rule)).status_code
        if who in rule.allowed:
            assert status not in (403, 404, 405) and status < 500, (name, who, status)
        elif who == "nobody":
            assert status == rule.nobody, (name, who, status)
        else:
            assert status == rule.denied, (name, who, status)


def _body(rule: Rule) -> dict:
    if rule.method != "POST":
        return {}
    from urllib.parse import urlencode

    return {
        "data": urlencode(rule.data or {}, doseq=True),
        "content_type": "application/x-www-form-urlencoded",
    }
