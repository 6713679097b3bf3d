"""``ETag`` / ``If-Match`` on change requests: no lost updates.

Every answer carrying a change request has its ``ETag`` (``"cr-<id>-v<version>"``;
the version is bumped on every change of the request). A write that sends
``If-Match`` goes through only while it still names the current ETag, else
412 Precondition Failed with the current ETag in the details. Content edits
must send it (428 Precondition Required without). ``*`` matches any version;
``W/`` prefixes are ignored (the ETags are strong).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from rest_framework import status
from rest_framework.request import Request

from webhooks_ui.api.errors import ApiError
from webhooks_ui.api.permissions import api_change
from webhooks_ui.models import ChangeRequest


def if_match(
    request: Request, change: ChangeRequest, *, required: bool = False
) -> None:
    """Refuse the write unless ``If-Match`` names ``change``'s current ETag."""
    header = request.headers.get("If-Match")
    if header is None or not header.strip():
        if required:
            raise ApiError(
                "This edit needs an If-Match header with the change request's "
                "ETag (GET it first), so that nobody's edit is lost.",
                code="precondition_required",
                status_code=status.HTTP_428_PRECONDITION_REQUIRED,
                details={"etag": change.etag},
            )
        return
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    if "*" in tags or change.etag in tags:
        return
    raise ApiError(
        f"The change request changed since you read it: it is now at "
        f"{change.etag}. GET it again and retry.",
        code="precondition_failed",
        status_code=status.HTTP_412_PRECONDITION_FAILED,
        details={"etag": change.etag, "version": change.version},
    )


@contextmanager
def change_locked(
    request: Request, change_id: int, *, required: bool = False
) -> Iterator[ChangeRequest]:
    """The visible change request, its row locked for the block (on databases
    that lock rows), once ``If-Match`` holds: nobody can change it between
    the check and the write."""
    with transaction.atomic():
        change = api_change(request, change_id)
        change.version = (
            ChangeRequest.objects.select_for_update()
            .values_list("version", flat=True)
            .get(pk=change.pk)
        )
        if_match(request, change, required=required)
        yield change
