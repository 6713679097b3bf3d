"""Documented error responses, so generated clients know the error shape."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from webhooks_ui.api.serializers import ErrorSerializer

_DESCRIPTIONS = {
    400: "Invalid input (validation, malformed manifest, bad filter).",
    401: "Not signed in, or a wrong or revoked token.",
    403: "You can see the cluster but lack the role this needs.",
    404: "No such object, or a cluster you may not see.",
    409: "The change request's state or its cluster's policy does not allow "
    "this now (code: invalid_state, policy, conflict, dry_run_failed), or the "
    "apply found the live object changed (code: stale).",
    412: "If-Match does not name the change request's current ETag "
    "(code: precondition_failed; details.etag is the current one).",
    422: "The content is not valid (code: not_valid).",
    428: "This edit needs an If-Match header (code: precondition_required).",
    502: "The cluster rejected the write (code: apply_failed); details hold the "
    "outcome and the change, now failed.",
    503: "The cluster could not be reached; nothing was sent (code: not_sent).",
}
# What a step of the change-request workflow may answer besides 2xx.
WORKFLOW = (409, 412, 422)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """401 always, plus ``codes``, each with the one error shape."""
    return {
        code: OpenApiResponse(ErrorSerializer, description=_DESCRIPTIONS[code])
        for code in sorted({401, *codes})
    }


ERRORS = errors(400, 404)


# Path parameters of a configuration URL: kind is a slug, as in the UI's URLs.
KIND_PARAMETER = OpenApiParameter(
    "kind",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    enum=["mutating", "validating"],
    description="mutating or validating",
)
CLUSTER_PARAMETER = OpenApiParameter(
    "cluster", OpenApiTypes.STR, OpenApiParameter.PATH, description="Cluster name."
)
