"""Compile-checks for matchCondition CEL expressions (spec V-35).

The apiserver compiles each expression with cel-go in an environment that
declares ``object``, ``oldObject``, ``request``, ``authorizer`` (and
``authorizer.requestResource``, ``namespaceObject``) but not ``params``, and
requires a bool result. We cannot run cel-go, so:

1. Syntax: the ``cel`` package (common-expression-language, Rust). Its parser
   is generated from the same ANTLR grammar as cel-go's and reports errors in
   cel-go's format (``ERROR: <input>:1:4: Syntax error: ...``), including
   reserved identifiers and bad literals. It does not know the optional-field
   syntax (``a.?b``, ``a[?k]``, ``[?x]``) or escaped field names (`` a.`b-c` ``)
   that Kubernetes enables, so those are blanked out before parsing.
2. A deliberately conservative static check on top: undeclared top-level
   variables and a result that is certainly not bool. Anything this module
   cannot decide is accepted: rejecting an expression the apiserver accepts
   would block a legitimate change, accepting a bad one only defers the
   apiserver's 422.

Results are cached per expression: configurations repeat the same conditions.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass

import cel as cel_lib

# cel-go's default parser limit (code points); Kubernetes keeps it.
EXPRESSION_SIZE_LIMIT = 100_000

DECLARED_VARIABLES = frozenset(
    {"object", "oldObject", "request", "authorizer", "namespaceObject"}
)
# Type names are identifiers in CEL (``type(x) == string``); ``google`` roots
# the protobuf well-known type names.
_TYPE_IDENTIFIERS = frozenset(
    {
        "bool",
        "bytes",
        "double",
        "dyn",
        "int",
        "list",
        "map",
        "null_type",
        "optional_type",
        "string",
        "type",
        "uint",
        "google",
    }
)
# Macros whose leading simple-name arguments bind comprehension variables.
_BINDING_MACROS = frozenset(
    {
        "all",
        "exists",
        "exists_one",
        "existsOne",
        "map",
        "filter",
        "transformList",
        "transformMap",
        "transformMapEntry",
        "sortBy",
        "optMap",
        "optFlatMap",
        "bind",
    }
)
_RELATIONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "&&", "||"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%"})
_OPERAND_END = frozenset({"ident", "string", "bytes", "int", "uint", "double"})
# The Rust parser recurses once per nesting level; cel-go stops at a depth of
# 250 but the Rust one does not, and overflows an 8 MiB stack on ~30k-deep
# chains (a crash, not an exception). Parsing runs on a thread with room to
# spare for anything under the size limit.
_PARSER_STACK_BYTES = 512 * 1024 * 1024
# Inline fallback bound: far below the ~60k-character chains that overflow.
_INLINE_PARSE_LIMIT = 10_000
_STACK_LOCK = threading.Lock()
_BYTE_PREFIXES = frozenset({"rb", "rB", "Rb", "RB"})

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[\t\n\f\r ]+|//[^\n]*)
   |(?P<rawstr>(?:[bB]?[rR]|[rR][bB])
        (?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"[^"\n\r]*"|'[^'\n\r]*'))
   |(?P<str>[bB]?
        (?:\"\"\"(?:[^\\]|\\[\s\S])*?\"\"\"|'''(?:[^\\]|\\[\s\S])*?'''
          |"(?:[^"\\\n\r]|\\[\s\S])*"|'(?:[^'\\\n\r]|\\[\s\S])*'))
   |(?P<num>0[xX][0-9a-fA-F]+[uU]?|\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+
        |\.\d+(?:[eE][+-]?\d+)?|\d+[uU]?)
   |(?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
   |(?P<quoted>`[^`\n\r]*`)
   |(?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.,()\[\]{}])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # ident, string, bytes, int, uint, double, quoted, op
    text: str
    offset: int


@functools.lru_cache(maxsize=2048)
def check_expression(expression: str) -> str | None:
    """None when ``expression`` is accepted, else the apiserver-style detail.

    ``expression`` is the already-trimmed text, as the apiserver compiles it.
    """
    size = len(expression)
    if size > EXPRESSION_SIZE_LIMIT:
        return (
            "compilation failed: ERROR: <input>:-1:0: expression code point size "
            f"exceeds limit: size: {size}, limit {EXPRESSION_SIZE_LIMIT}"
        )
    tokens = tokenize(expression)
    source = _blank_kubernetes_syntax(expression, tokens) if tokens else expression
    program, syntax_error = _compile(source)
    if syntax_error is not None:
        return "compilation failed: " + _cel_go_style(syntax_error, source, expression)
    if tokens is None or program is None:
        return None
    undeclared = _undeclared_variables(program, tokens)
    if undeclared:
        name, token = undeclared
        return "compilation failed: " + _located(
            expression,
            token.offset,
            f"undeclared reference to '{name}' (in container '')",
        )
    got = _certainly_not_bool(tokens)
    if got is not None:
        return "must evaluate to bool" + (f" but got {got}" if got else "")
    return None


def tokenize(expression: str) -> list[Token] | None:
    """CEL tokens without whitespace and comments; None if lexing fails."""
    tokens: list[Token] = []
    position = 0
    length = len(expression)
    while position < length:
        match = _TOKEN_RE.match(expression, position)
        if match is None:
            return None
        kind = match.lastgroup or ""
        text = match.group()
        if kind == "rawstr" or kind == "str":
            kind = (
                "bytes" if text[0] in "bB" or text[:2] in _BYTE_PREFIXES else "string"
            )
        elif kind == "num":
            kind = _number_kind(text)
        if kind != "ws":
            tokens.append(Token(kind, text, position))
        position = match.end()
    return tokens


def _number_kind(text: str) -> str:
    if text[-1] in "uU":
        return "uint"
    if text[:2] in ("0x", "0X"):
        return "int"
    if any(char in text for char in ".eE"):
        return "double"
    return "int"


def _blank_kubernetes_syntax(expression: str, tokens: list[Token]) -> str:
    """Blank out syntax Kubernetes' cel-go accepts but the Rust parser does not.

    Same-length replacements keep error columns pointing at the user's text.
    """
    chars = list(expression)
    previous = None
    for token in tokens:
        after_opener = previous is not None and previous.text in (".", "[", "{", ",")
        if token.text == "?" and after_opener:
            chars[token.offset] = " "
        elif token.kind == "quoted" and previous is not None and previous.text == ".":
            end = token.offset + len(token.text)
            chars[token.offset : end] = "_" * len(token.text)
        previous = token
    return "".join(chars)


def _compile(source: str) -> tuple[object | None, str | None]:
    """(program, None) or (None, parser message), never raising or crashing."""
    outcome: list[tuple[object | None, str | None]] = []

    def run() -> None:
        try:
            outcome.append((cel_lib.compile(source), None))
        except ValueError as error:
            outcome.append((None, str(error)))
        except BaseException as error:  # noqa: BLE001 - Rust panics are BaseException
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
            outcome.append((None, f"ERROR: <input>:1:1: {error}"))

    try:
        with _STACK_LOCK:
            previous = threading.stack_size(_PARSER_STACK_BYTES)
            try:
                worker = threading.Thread(target=run, name="cel-parse", daemon=True)
                worker.start()
            finally:
                threading.stack_size(previous)
    except (RuntimeError, MemoryError, ValueError):
        # No big-stack thread on this platform: parse inline only what is far
        # too shallow to overflow the stack; accept the rest unparsed.
        if len(source) > _INLINE_PARSE_LIMIT:
            return None, None
        run()
    else:
        worker.join()
    return outcome[0] if outcome else (None, "ERROR: <input>:1:1: parser failed")


def _cel_go_style(message: str, source: str, expression: str) -> str:
    """The Rust parser's message in cel-go's layout, showing the user's text."""
    prefix = f"Failed to parse expression '{source}': "
    if message.startswith(prefix):
        message = message[len(prefix) :]
    lines = []
    for line in message.split("\n"):
        if line.startswith("| "):
            line = " " + line
        lines.append(line)
    text = "\n".join(lines)
    if source != expression:
        text = text.replace(source, expression)
    return text


def _located(expression: str, offset: int, message: str) -> str:
    """cel-go's ``ERROR: <input>:line:col: msg`` plus the source line and caret."""
    line_start = expression.rfind("\n", 0, offset) + 1
    line_end = expression.find("\n", offset)
    if line_end < 0:
        line_end = len(expression)
    line = expression.count("\n", 0, offset) + 1
    column = offset - line_start
    snippet = expression[line_start:line_end]
    return (
        f"ERROR: <input>:{line}:{column + 1}: {message}\n"
        f" | {snippet}\n"
        f" | {'.' * column}^"
    )


def _undeclared_variables(
    program: object, tokens: list[Token]
) -> tuple[str, Token] | None:
    """The first top-level variable the apiserver's environment does not declare."""
    try:
        variables = program.references().get("variables", [])  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an API change in the library must not block users
        return None
    bound = _bound_and_namespace_names(tokens)
    for variable in variables:
        name = str(variable).lstrip(".")
        if name in DECLARED_VARIABLES or name in _TYPE_IDENTIFIERS or name in bound:
            continue
        token = _first_root_use(tokens, name)
        if token is None:
            # Not a root identifier we can point at (e.g. a message type name).
            continue
        return name, token
    return None


def _bound_and_namespace_names(tokens: list[Token]) -> set[str]:
    """Names bound by comprehension macros or used as function namespaces.

    Scope is ignored on purpose (a name bound anywhere counts everywhere):
    this can only make the check accept more.
    """
    names: set[str] = set()
    count = len(tokens)
    for index, token in enumerate(tokens):
        if token.kind != "ident":
            continue
        follows_dot = index > 0 and tokens[index - 1].text == "."
        next_text = tokens[index + 1].text if index + 1 < count else ""
        if (
            not follows_dot
            and next_text == "."
            and index + 3 < count
            and tokens[index + 2].kind == "ident"
            and tokens[index + 3].text == "("
        ):
            # ``math.greatest(...)``, ``optional.of(...)``: namespaced functions.
            names.add(token.text)
        if follows_dot and token.text in _BINDING_MACROS and next_text == "(":
            cursor = index + 2
            while (
                cursor + 1 < count
                and tokens[cursor].kind == "ident"
                and tokens[cursor + 1].text == ","
            ):
                names.add(tokens[cursor].text)
                cursor += 2
    return names


def _first_root_use(tokens: list[Token], name: str) -> Token | None:
    for index, token in enumerate(tokens):
        if token.kind != "ident" or token.text != name:
            continue
        previous = tokens[index - 1] if index > 0 else None
        if previous is not None and previous.text == ".":
            # ``.name`` at the very start or after an operator is a root use.
            before = tokens[index - 2] if index > 1 else None
            if before is not None and (
                before.kind in _OPERAND_END or before.text in (")", "]", "}")
            ):
                continue
        return token
    return None


def _certainly_not_bool(tokens: list[Token]) -> str | None:
    """The result type when the expression can only produce a non-bool.

    Returns a cel-go type name, ``""`` when certainly non-bool but of unknown
    type, or None when the result may be bool (or we cannot tell).
    """
    tokens = _strip_outer_parens(tokens)
    if not tokens:
        return None
    depth = 0
    arithmetic = False
    previous: Token | None = None
    for token in tokens:
        text = token.text
        if token.kind == "op" and text in "([{":
            depth += 1
        elif token.kind == "op" and text in ")]}":
            depth -= 1
        elif depth == 0:
            if text == "?" or (token.kind in ("op", "ident") and text in _RELATIONS):
                return None
            if token.kind == "op" and text in _ARITHMETIC and _is_binary(previous):
                arithmetic = True
        previous = token
    if arithmetic:
        return ""
    first = tokens[0]
    if first.text == "-" and first.kind == "op":
        return ""
    if len(tokens) == 1:
        if first.kind in ("string", "bytes", "int", "uint", "double"):
            return first.kind
        if first.kind == "ident" and first.text == "null":
            return "null_type"
        return None
    if first.text in ("[", "{") and _closes_at_end(tokens):
        return "list" if first.text == "[" else "map"
    return None


def _is_binary(previous: Token | None) -> bool:
    if previous is None:
        return False
    return previous.kind in _OPERAND_END or previous.text in (")", "]", "}")


def _closes_at_end(tokens: list[Token]) -> bool:
    """True when the bracket opened by the first token closes at the last one."""
    depth = 0
    for index, token in enumerate(tokens):
        if token.kind != "op":
            continue
        if token.text in "([{":
            depth += 1
        elif token.text in ")]}":
            depth -= 1
            if depth == 0:
                return index == len(tokens) - 1
    return False


def _strip_outer_parens(tokens: list[Token]) -> list[Token]:
    while len(tokens) >= 2 and tokens[0].text == "(" and _closes_at_end(tokens):
        tokens = tokens[1:-1]
    return tokens
