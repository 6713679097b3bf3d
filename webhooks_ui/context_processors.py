"""Template context every page gets: the change counts of the navigation."""

from __future__ import annotations

from functools import cached_property

from django.http import HttpRequest

from webhooks_ui.services.changes import awaiting_review, my_open_changes


class ChangeCounts:
    """Counted only when a template reads them (a partial never does)."""

    def __init__(self, user) -> None:
        self._user = user

    @cached_property
    def awaiting(self) -> int:
        return awaiting_review(self._user).count()

    @cached_property
    def mine(self) -> int:
        return my_open_changes(self._user).count()


def change_counts(request: HttpRequest) -> dict[str, ChangeCounts]:
    """``change_counts.awaiting`` and ``.mine`` for a signed-in user; nothing
    for anyone else (the sign-in page costs no query)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"change_counts": ChangeCounts(user)}
