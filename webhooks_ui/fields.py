"""Model fields of our own."""

from __future__ import annotations

import json
from typing import Any

from django.db import models


class OrderedJSONField(models.TextField):
    """JSON stored as text, so key order survives on every database.

    PostgreSQL's jsonb (behind Django's JSONField) sorts keys; objects must
    come back exactly as the API server served them, in its order. Nothing
    queries inside these documents, so text loses nothing.
    """

    description = "JSON document stored as text (key order kept)"

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    def get_prep_value(self, value: Any) -> str | None:
        if value is None:
            return None
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def value_to_string(self, obj: models.Model) -> str:
        return self.get_prep_value(self.value_from_object(obj)) or ""
