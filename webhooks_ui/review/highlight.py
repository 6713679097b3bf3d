"""YAML shown with syntax highlighting (Pygments, server-side: no script needed)."""

from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import YamlLexer

_FORMATTER = HtmlFormatter(cssclass="highlight", linenos=False)
_LEXER = YamlLexer()


def highlight_yaml(text: str) -> SafeString:
    """HTML for ``text``; Pygments escapes every token, so this is safe markup."""
    return mark_safe(highlight(text, _LEXER, _FORMATTER))  # noqa: S308
