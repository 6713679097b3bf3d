"""URL converters: kinds appear in URLs as short slugs."""

from webhooks_ui.domain.kinds import MUTATING, VALIDATING

SLUG_BY_KIND = {MUTATING: "mutating", VALIDATING: "validating"}
KIND_BY_SLUG = {slug: kind for kind, slug in SLUG_BY_KIND.items()}


class KindConverter:
    regex = "mutating|validating"

    def to_python(self, value: str) -> str:
        return KIND_BY_SLUG[value]

    def to_url(self, value: str) -> str:
        return SLUG_BY_KIND.get(value, value)
