"""URL converters: kinds appear in URLs as short slugs; ids fit the database."""

from django.urls import register_converter

from webhooks_ui.domain.kinds import MUTATING, VALIDATING

SLUG_BY_KIND = {MUTATING: "mutating", VALIDATING: "validating"}
KIND_BY_SLUG = {slug: kind for kind, slug in SLUG_BY_KIND.items()}


class KindConverter:
    regex = "mutating|validating"

    def to_python(self, value: str) -> str:
        return KIND_BY_SLUG[value]

    def to_url(self, value: str) -> str:
        return SLUG_BY_KIND.get(value, value)


class IdConverter:
    """A row id or number: at most 18 digits, so it always fits a 64-bit
    column (Django's ``int`` takes any length, and SQLite raises OverflowError
    on a bigger one: a 500 instead of a 404)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


_registered = False


def register() -> None:
    """Register the converters once, whichever URLconf is loaded first."""
    global _registered
    if not _registered:
        register_converter(KindConverter, "kind")
        register_converter(IdConverter, "id")
        _registered = True
