"""Request bodies the validate endpoint takes as text: YAML, JSON, plain text.

JSON is kept as text too: the manifest loader reports line and column and
rejects duplicate keys, which a parsed dict could no longer do.
"""

from __future__ import annotations

import json
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from webhooks_ui.api.serializers import ManifestWrapperSerializer


class TextParser(BaseParser):
    media_type = "text/plain"

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None):  # noqa: ANN201
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        try:
            return stream.read().decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(f"The body is not {encoding} text: {exc}") from None


class YamlParser(TextParser):
    media_type = "application/yaml"


class LegacyYamlParser(TextParser):
    media_type = "application/x-yaml"


class TextYamlParser(TextParser):
    media_type = "text/yaml"


class JsonTextParser(TextParser):
    media_type = "application/json"


MANIFEST_PARSERS = [
    JsonTextParser,
    YamlParser,
    LegacyYamlParser,
    TextYamlParser,
    TextParser,
]


def manifest_text(body: Any, content_type: str) -> str:
    """The manifest in a request: the body itself, or ``{"manifest": "..."}``'s
    string when a JSON body is that wrapper rather than an object."""
    text = body if isinstance(body, str) else ""
    if not content_type.startswith("application/json"):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text  # the loader reports where it breaks
    if isinstance(value, dict) and "manifest" in value and "kind" not in value:
        wrapper = ManifestWrapperSerializer(data=value)
        wrapper.is_valid(raise_exception=True)
        return wrapper.validated_data["manifest"]
    return text
