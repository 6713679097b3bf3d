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
}


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
