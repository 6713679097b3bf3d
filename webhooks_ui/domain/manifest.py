"""Reading and writing Kubernetes manifests (YAML or JSON) as plain JSON data.

Loading produces exactly what ``kubectl`` would send as JSON: dicts (key order
kept, unknown fields kept), lists, str, int, float, bool and None. Nothing else
leaks out: no dates, no sets, no shared references from YAML aliases.

YAML decisions (the reasons are Kubernetes-specific):

* Scalars resolve by the YAML 1.2 core schema, always (a ``%YAML 1.1``
  directive is ignored). ``yes``/``no``/``on``/``off``/``y``/``n`` are strings;
  only ``true``/``false`` (any case variant the spec allows) are booleans;
  ``0777`` is the decimal 777 and ``0o777`` is octal; ``1e3`` is a float.
  kube's own parser (sigs.k8s.io/yaml over go-yaml v2) follows YAML 1.1 for
  these, so ``dump_yaml`` quotes every string that *either* schema would read
  as something else: our output means the same thing to both.
* Timestamps stay strings: JSON has no date type, and every Kubernetes
  timestamp field is a string on the wire.
* ``.inf`` and ``.nan`` are rejected: JSON cannot carry them.
* Integers keep full precision (Python ints), up to Python's 4300-digit limit.
* Mapping keys must be strings: ``1: x`` or ``true: x`` is an error rather than
  a silent conversion, because such a key is always a typo in a manifest.
* Duplicate keys are an error (as in kubectl's strict decoding), and so is any
  tag outside the core schema (``!!binary``, ``!!set``, ``!custom``).
* Merge keys (``<<: *base``) are honoured, as go-yaml does; explicit keys win.
* Safety limits: input size, nesting depth, and the number of nodes copied in
  through aliases across the whole input ("billion laughs" protection).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml import events as ev
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.tag import Tag

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_DEPTH = 100
# A real manifest with YAML anchors reuses a few rules or selectors; ten
# thousand copied nodes is far above that and far below an exponential blow-up.
DEFAULT_MAX_ALIAS_NODES = 10_000

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (
    f"{_CORE}str",
    f"{_CORE}int",
    f"{_CORE}float",
    f"{_CORE}bool",
    f"{_CORE}null",
)
_TIMESTAMP, _MAP, _SEQ = f"{_CORE}timestamp", f"{_CORE}map", f"{_CORE}seq"
_NON_SPECIFIC = "!"
_MERGE_KEY = "<<"
_JSON_ONLY = "manifests hold only strings, numbers, booleans, null, lists and mappings"


class ManifestError(ValueError):
    """Input that is not a readable manifest, with where it went wrong (1-based)."""

    def __init__(
        self,
        message: str,
        *,
        source: str = "<input>",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where = f"{where}:{self.line}"
            if self.column is not None:
                where = f"{where}:{self.column}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class LoadedObject:
    """One object from a manifest and where it came from, for messages."""

    obj: dict[str, Any]
    # 1-based position of the YAML document (or JSON value) in the input,
    # counting empty documents too, so it matches what a reader counts.
    document: int
    # 0-based index into ``items`` when the object came out of a List wrapper.
    item: int | None = None
    # 1-based line where the object starts; None where it is not known.
    line: int | None = field(default=None, compare=False)


# --- Loading ------------------------------------------------------------------


def load_documents(
    text: str | bytes,
    *,
    source: str = "<input>",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES,
) -> list[dict[str, Any]]:
    """Every object in a YAML or JSON manifest, List wrappers unwrapped.

    Raises ManifestError for anything that is not a readable manifest.
    """
    return [
        loaded.obj
        for loaded in load_objects(
            text,
            source=source,
            max_bytes=max_bytes,
            max_depth=max_depth,
            max_alias_nodes=max_alias_nodes,
        )
    ]


def load_objects(
    text: str | bytes,
    *,
    source: str = "<input>",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES,
) -> list[LoadedObject]:
    """Like ``load_documents`` but says which document (and List item) each is."""
    limits = (source, max_bytes, max_depth, max_alias_nodes)
    if isinstance(text, str) and len(text) <= _MEMO_MAX_CHARS:
        # Callers own (and may change) what they get: hand out copies.
        return [
            replace(one, obj=copy.deepcopy(one.obj))
            for one in _load_objects_memo(text, *limits)
        ]
    return _load_objects(text, *limits)


# The editor reads the same draft text several times per keystroke (save,
# evaluate, form, preview), and the pure-Python YAML parser is most of the
# cost: remember the last few parses (successes only; errors are re-raised).
_MEMO_MAX_CHARS = 256 * 1024


@functools.lru_cache(maxsize=16)
def _load_objects_memo(text: str, *limits: Any) -> tuple[LoadedObject, ...]:
    return tuple(_load_objects(text, *limits))


def _load_objects(
    text: str | bytes, source: str, max_bytes: int, max_depth: int, max_alias_nodes: int
) -> list[LoadedObject]:
    decoded = _decode(text, source=source, max_bytes=max_bytes)
    documents = _load_json_stream(decoded, max_depth=max_depth)
    if documents is None:
        documents = _YamlBuilder(
            source=source, max_depth=max_depth, max_alias_nodes=max_alias_nodes
        ).build(decoded)
    objects: list[LoadedObject] = []
    for document in documents:
        if document.value is None:
            continue  # an empty document, or one holding only comments
        if not isinstance(document.value, dict):
            raise ManifestError(
                f"document {document.index} is {_describe(document.value)}, "
                "not an object with apiVersion and kind",
                source=source,
                line=document.line,
                column=document.column,
            )
        objects.extend(_unwrap_list(document, source=source))
    return objects


@dataclass(frozen=True)
class _Document:
    index: int
    value: Any
    line: int | None
    column: int | None
    # Start lines of the mappings inside this document, by id(); used to say
    # where each List item starts. Each entry holds its mapping too, so that a
    # discarded mapping (a merge source) cannot free its id for reuse.
    lines_by_id: dict[int, tuple[int, Any]] = field(default_factory=dict)


def _decode(text: str | bytes, *, source: str, max_bytes: int) -> str:
    if isinstance(text, str):
        if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > (
            max_bytes
        ):
            raise _too_big(source, max_bytes)
        return text.removeprefix("\ufeff")
    if len(text) > max_bytes:
        raise _too_big(source, max_bytes)
    # YAML allows UTF-16 with a byte order mark; Windows tools write it.
    if text.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
    try:
        return text.decode(encoding)
    except UnicodeDecodeError as error:
        line, column = _line_column(text, error.start)
        raise ManifestError(
            f"invalid {encoding.removesuffix('-sig').upper()} byte sequence "
            "(manifests must be UTF-8 text)",
            source=source,
            line=line,
            column=column,
        ) from None


def _too_big(source: str, max_bytes: int) -> ManifestError:
    return ManifestError(
        f"input is larger than the {max_bytes}-byte limit", source=source
    )


def _line_column(text: str | bytes, offset: int) -> tuple[int, int]:
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, offset) + 1
    line_start = text.rfind(newline, 0, offset) + 1
    return line, offset - line_start + 1


def _describe(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _unwrap_list(document: _Document, *, source: str) -> list[LoadedObject]:
    obj = document.value
    kind = obj.get("kind")
    items = obj.get("items")
    is_list = (
        isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)
    )
    if not is_list:
        return [LoadedObject(obj, document.index, None, document.line)]
    unwrapped = []
    for index, item in enumerate(items):
        line = document.lines_by_id.get(id(item), (None, None))[0]
        if not isinstance(item, dict):
            raise ManifestError(
                f"items[{index}] of the {kind} in document {document.index} is "
                f"{_describe(item)}, not an object",
                source=source,
                line=line or document.line,
            )
        unwrapped.append(
            LoadedObject(_typed_list_item(obj, item), document.index, index, line)
        )
    return unwrapped


def _typed_list_item(list_obj: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Give items of a typed list (``FooList``) their kind, as the API implies.

    The API server omits apiVersion and kind on the items of a typed list
    (``kubectl get --raw .../validatingwebhookconfigurations``); the list's own
    kind says what they are. A plain ``List`` says nothing, so nothing is added.
    """
    kind = list_obj["kind"]
    if kind == "List" or ("kind" in item and "apiVersion" in item):
        return item
    filled: dict[str, Any] = {}
    if "apiVersion" not in item and isinstance(list_obj.get("apiVersion"), str):
        filled["apiVersion"] = list_obj["apiVersion"]
    if "kind" not in item:
        filled["kind"] = kind.removesuffix("List")
    return {**filled, **item}


# --- JSON fast path -----------------------------------------------------------


class _NotPlainJson(Exception):
    """The JSON fast path gives up; the YAML path reads it or explains why not."""


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _NotPlainJson
    return result


def _reject_constant(name: str) -> Any:
    raise _NotPlainJson  # NaN / Infinity are not JSON and not in any manifest


_JSON_DECODER = json.JSONDecoder(
    object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant
)
_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _load_json_stream(text: str, *, max_depth: int) -> list[_Document] | None:
    """Parse JSON values (one, or several back to back as jq prints them).

    JSON is valid YAML 1.2, so this is only a speed-up for large
    ``kubectl get -o json`` dumps. Returns None whenever the text is not plain
    JSON within limits; the YAML path then reads it or reports the position.
    """
    start = _JSON_WHITESPACE.match(text).end()
    if start == len(text) or text[start] not in "{[":
        return None
    documents = []
    line, line_start = 1, 0
    try:
        while start < len(text):
            value, end = _JSON_DECODER.raw_decode(text, start)
            if _depth(value) > max_depth:
                return None
            line += text.count("\n", line_start, start)
            line_start = start
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            documents.append(_Document(len(documents) + 1, value, line, column))
            start = _JSON_WHITESPACE.match(text, end).end()
    except (ValueError, RecursionError, _NotPlainJson):
        return None
    return documents


def _depth(value: Any) -> int:
    deepest = 0
    pending = [(value, 1)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, dict):
            children: Iterable[Any] = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


# --- YAML path ----------------------------------------------------------------

# YAML 1.2 core schema (spec section 10.3.2), matched against whole scalars.
_CORE_NULL = re.compile(r"~|null|Null|NULL|")
_CORE_TRUE = re.compile(r"true|True|TRUE")
_CORE_FALSE = re.compile(r"false|False|FALSE")
_CORE_INT = re.compile(r"[-+]?[0-9]+")
_CORE_INT_OCTAL = re.compile(r"0o[0-7]+")
_CORE_INT_HEX = re.compile(r"0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_CORE_INF_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


class _NonJsonScalar(Exception):
    """A scalar that has no JSON equivalent (``.inf``, a huge integer)."""


def _resolve_plain(value: str) -> Any:
    """The JSON value of an untagged plain scalar under the YAML 1.2 core schema."""
    if _CORE_NULL.fullmatch(value):
        return None
    if _CORE_TRUE.fullmatch(value):
        return True
    if _CORE_FALSE.fullmatch(value):
        return False
    if _CORE_INT.fullmatch(value):
        return _to_int(value, 10)
    if _CORE_INT_OCTAL.fullmatch(value):
        return _to_int(value[2:], 8)
    if _CORE_INT_HEX.fullmatch(value):
        return _to_int(value[2:], 16)
    if _CORE_FLOAT.fullmatch(value):
        return float(value)
    if _CORE_INF_NAN.fullmatch(value):
        raise _NonJsonScalar(f"{value} is not a number JSON can represent")
    return value


def _to_int(digits: str, base: int) -> int:
    try:
        return int(digits, base)
    except ValueError:  # Python's limit on the length of integer strings
        raise _NonJsonScalar("integer is too large") from None


def _resolve_tagged(value: str, tag: str) -> Any:
    """A scalar with an explicit tag (``!!str 10``, ``!!int "10"``)."""
    if tag in (_STR, _NON_SPECIFIC, _TIMESTAMP):
        return value  # timestamps stay strings: JSON has no date type
    resolved = _resolve_plain(value)
    expected = {_INT: int, _FLOAT: (int, float), _BOOL: bool, _NULL: type(None)}
    if tag not in expected:
        raise _NonJsonScalar(f"unsupported tag {_short_tag(tag)}: {_JSON_ONLY}")
    if (
        isinstance(resolved, bool)
        and tag != _BOOL
        or not isinstance(resolved, expected[tag])
    ):
        raise _NonJsonScalar(f"{value!r} is not a valid {_short_tag(tag)}")
    return float(resolved) if tag == _FLOAT else resolved


def _short_tag(tag: str) -> str:
    """``!!binary`` rather than ``tag:yaml.org,2002:binary``, as the user wrote it."""
    return "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag


def _code_point(character: str | int) -> str:
    code = character if isinstance(character, int) else ord(character)
    return f"U+{code:04X}"


@dataclass
class _Node:
    """A collection being built from parser events."""

    value: dict[str, Any] | list[Any]
    anchor: str | None
    height: int = 1  # levels of nesting at and below this node
    count: int = 1  # nodes in this subtree, aliases expanded
    # Mapping state: the key waiting for its value, and merge bookkeeping.
    key: Any = None
    key_mark: Any = None
    has_key: bool = False
    explicit_keys: set[str] = field(default_factory=set)


@dataclass
class _Anchored:
    value: Any
    height: int
    count: int


class _YamlBuilder:
    """Builds plain JSON data from ruamel.yaml parser events.

    Working from events rather than ruamel's constructor gives one place for
    every rule above, positions for every error, and limits that are checked
    while parsing, before a hostile input can cost memory or time.
    """

    def __init__(self, *, source: str, max_depth: int, max_alias_nodes: int):
        self.source = source
        self.max_depth = max_depth
        self.max_alias_nodes = max_alias_nodes
        self.alias_nodes = 0

    def build(self, text: str) -> list[_Document]:
        parser = YAML(typ="safe", pure=True)
        try:
            return self._documents(parser.parse(text))
        except MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            message = error.problem or error.context or "invalid YAML"
            if error.problem and error.context and error.context_mark:
                context_mark = error.context_mark
                message = (
                    f"{message} ({error.context} at line "
                    f"{context_mark.line + 1}, column {context_mark.column + 1})"
                )
            raise self._error(message, mark) from None
        except ReaderError as error:
            line, column = _line_column(text, error.position)
            raise ManifestError(
                f"character {_code_point(error.character)} is not allowed in YAML "
                "(control characters must be escaped in a double-quoted string)",
                source=self.source,
                line=line,
                column=column,
            ) from None
        except YAMLError as error:
            raise ManifestError(str(error), source=self.source) from None
        except RecursionError:
            raise ManifestError(
                f"nesting is deeper than {self.max_depth} levels", source=self.source
            ) from None

    def _error(self, message: str, mark: Any) -> ManifestError:
        if mark is None:
            return ManifestError(message, source=self.source)
        return ManifestError(
            message, source=self.source, line=mark.line + 1, column=mark.column + 1
        )

    def _documents(self, events: Iterator[ev.Event]) -> list[_Document]:
        documents: list[_Document] = []
        stack: list[_Node] = []
        anchors: dict[str, _Anchored] = {}
        lines_by_id: dict[int, tuple[int, Any]] = {}
        root: list[Any] = []  # the finished root value of the current document
        root_mark: Any = None
        for event in events:
            if isinstance(event, ev.DocumentStartEvent):
                anchors = {}  # anchors never reach across documents
                lines_by_id = {}
                root = []
                root_mark = None
            elif isinstance(event, ev.DocumentEndEvent):
                documents.append(
                    _Document(
                        len(documents) + 1,
                        root[0] if root else None,
                        root_mark.line + 1 if root_mark else None,
                        root_mark.column + 1 if root_mark else None,
                        lines_by_id,
                    )
                )
            elif isinstance(event, ev.MappingStartEvent | ev.SequenceStartEvent):
                self._check_collection_tag(event)
                depth = len(stack) + 1
                if depth > self.max_depth:
                    raise self._error(
                        f"nesting is deeper than {self.max_depth} levels",
                        event.start_mark,
                    )
                is_mapping = isinstance(event, ev.MappingStartEvent)
                if stack and self._awaiting_key(stack[-1]):
                    raise self._error(
                        "mapping keys must be strings, not "
                        + ("mappings" if is_mapping else "lists"),
                        event.start_mark,
                    )
                node = _Node({} if is_mapping else [], event.anchor)
                if is_mapping:
                    line = event.start_mark.line + 1
                    lines_by_id[id(node.value)] = (line, node.value)
                if not stack:
                    root_mark = event.start_mark
                stack.append(node)
            elif isinstance(event, ev.MappingEndEvent | ev.SequenceEndEvent):
                node = stack.pop()
                if node.anchor is not None:
                    anchors[node.anchor] = _Anchored(
                        node.value, node.height, node.count
                    )
                self._add(stack, root, node.value, node.height, node.count, event)
            elif isinstance(event, ev.ScalarEvent):
                value = self._scalar(event, stack)
                if event.anchor is not None:
                    anchors[event.anchor] = _Anchored(value, 0, 1)
                if not stack:
                    root_mark = event.start_mark
                self._add(stack, root, value, 0, 1, event)
            elif isinstance(event, ev.AliasEvent):
                anchored = anchors.get(event.anchor)
                if anchored is None:
                    # Either never defined, or still open: a recursive alias.
                    raise self._error(
                        f"alias *{event.anchor} refers to no completed anchor",
                        event.start_mark,
                    )
                self.alias_nodes += anchored.count
                if self.alias_nodes > self.max_alias_nodes:
                    raise self._error(
                        "aliases expand to more than "
                        f"{self.max_alias_nodes} nodes; refusing to expand further",
                        event.start_mark,
                    )
                if len(stack) + anchored.height > self.max_depth:
                    raise self._error(
                        f"nesting is deeper than {self.max_depth} levels",
                        event.start_mark,
                    )
                if not stack:
                    root_mark = event.start_mark
                # A copy, so no two places in the result share one object.
                value = copy.deepcopy(anchored.value)
                self._add(stack, root, value, anchored.height, anchored.count, event)
        return documents

    @staticmethod
    def _awaiting_key(node: _Node) -> bool:
        return isinstance(node.value, dict) and not node.has_key

    def _check_collection_tag(self, event: ev.NodeEvent) -> None:
        tag = event.tag
        allowed = _MAP if isinstance(event, ev.MappingStartEvent) else _SEQ
        if tag is not None and tag not in (allowed, _NON_SPECIFIC):
            raise self._error(
                f"unsupported tag {_short_tag(tag)}: {_JSON_ONLY}", event.start_mark
            )

    def _scalar(self, event: ev.ScalarEvent, stack: list[_Node]) -> Any:
        tag = event.tag
        if (
            stack
            and self._awaiting_key(stack[-1])
            and tag is None
            and event.implicit[0]
            and event.value == _MERGE_KEY
        ):
            return _MergeKey
        try:
            if tag is None:
                # implicit[0] is True only for plain (unquoted) scalars.
                return _resolve_plain(event.value) if event.implicit[0] else event.value
            return _resolve_tagged(event.value, tag)
        except _NonJsonScalar as error:
            raise self._error(str(error), event.start_mark) from None

    def _add(
        self,
        stack: list[_Node],
        root: list[Any],
        value: Any,
        height: int,
        count: int,
        event: ev.Event,
    ) -> None:
        if not stack:
            root.append(value)
            return
        parent = stack[-1]
        parent.height = max(parent.height, height + 1)
        parent.count += count
        if isinstance(parent.value, list):
            parent.value.append(value)
        elif not parent.has_key:
            self._check_key(value, event)
            parent.key, parent.key_mark, parent.has_key = value, event.start_mark, True
        else:
            self._set(parent, value, event)
            parent.has_key = False

    def _check_key(self, key: Any, event: ev.Event) -> None:
        if key is _MergeKey or isinstance(key, str):
            return
        if isinstance(key, dict | list):
            kind = "mappings" if isinstance(key, dict) else "lists"
            raise self._error(
                f"mapping keys must be strings, not {kind}", event.start_mark
            )
        shown = json.dumps(key)
        raise self._error(
            f"mapping key {shown} is not a string; quote it ('{shown}') "
            "if a string is meant",
            event.start_mark,
        )

    def _set(self, parent: _Node, value: Any, event: ev.Event) -> None:
        mapping = parent.value
        assert isinstance(mapping, dict)
        key = parent.key
        if key is _MergeKey:
            self._merge(parent, value, event)
            return
        if key in parent.explicit_keys:
            raise self._error(f'duplicate key "{key}"', parent.key_mark)
        parent.explicit_keys.add(key)
        mapping[key] = value  # replaces a merged value in place: explicit wins

    def _merge(self, parent: _Node, value: Any, event: ev.Event) -> None:
        if _MERGE_KEY in parent.explicit_keys:
            raise self._error(f'duplicate key "{_MERGE_KEY}"', parent.key_mark)
        parent.explicit_keys.add(_MERGE_KEY)
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(source, dict) for source in sources):
            raise self._error(
                "a merge key (<<) needs a mapping or a list of mappings",
                event.start_mark,
            )
        mapping = parent.value
        assert isinstance(mapping, dict)
        # Earlier sources win over later ones, and keys already present win
        # over all of them (explicit keys that follow replace merged ones).
        for source in sources:
            for key, item in source.items():
                mapping.setdefault(key, item)


class _MergeKeyType:
    """Marks a ``<<`` key while its mapping is being built."""


_MergeKey = _MergeKeyType()


# --- Dumping ------------------------------------------------------------------

# YAML 1.1 implicit types (as go-yaml v2 and so kubectl resolve them); a
# string matching any of these is quoted on output even where 1.2 would not
# need it. Patterns from the YAML 1.1 type repository (yaml.org/type).
_YAML11_NON_STRING = re.compile(
    r"""
    y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE
    |on|On|ON|off|Off|OFF
    |~|null|Null|NULL|=|<<
    |[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    |[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}
     (?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?
    """,
    re.VERBOSE,
)
# Literal block style is used for multi-line text only where it reads back
# exactly and simply; anything unusual goes double-quoted with escapes.
_BLOCK_UNSAFE = re.compile(
    r"[^\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]"
    r"|[ \t]\n|[ \t]$|\t"
)

_UNUSUAL_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_TAGS = {
    name: Tag(suffix=name) for name in (_STR, _INT, _FLOAT, _BOOL, _NULL, _MAP, _SEQ)
}


def dump_yaml(obj: Any) -> str:
    """One YAML document: block style, key order kept, no aliases, no line folding."""
    if not _json_shaped(obj):
        return _emit([obj])
    # For JSON-shaped objects (string keys only) key order and every value's
    # type survive in this key, so equal keys mean equal YAML.
    return _dump_json_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


# The editor's diff emits the same live object on every keystroke, and the
# pure-Python emitter is slow: keep the last few, keyed by their JSON.
@functools.lru_cache(maxsize=32)
def _dump_json_text(text: str) -> str:
    return _emit([json.loads(text)])


def _json_shaped(value: Any, depth: int = 0) -> bool:
    """Only str keys and JSON scalars, lists and dicts (``{1: x}`` and
    ``{"1": x}`` are one JSON text but two YAML texts)."""
    if value is None or isinstance(value, str | bool | int | float):
        return not isinstance(value, float) or value == value  # NaN != NaN
    if depth > DEFAULT_MAX_DEPTH:
        return False
    if type(value) is dict:
        return all(
            type(key) is str and _json_shaped(item, depth + 1)
            for key, item in value.items()
        )
    if type(value) is list:
        return all(_json_shaped(item, depth + 1) for item in value)
    return False


def dump_yaml_documents(objs: Iterable[Any]) -> str:
    """Several YAML documents separated by ``---`` (``kubectl apply -f`` reads it)."""
    return _emit(list(objs))


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """JSON text with key order kept and non-ASCII kept readable."""
    return json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


def _emit(documents: list[Any]) -> str:
    if not documents:
        return ""
    emitter = YAML(typ="safe", pure=True)
    emitter.width = 1 << 30  # never fold: a caBundle stays on one line
    emitter.allow_unicode = True
    emitter.indent(mapping=2, sequence=4, offset=2)
    out: list[str] = []

    class _Sink:
        def write(self, chunk: str) -> None:
            out.append(chunk)

    emitter.emit(_document_events(documents), _Sink())
    return "".join(out)


def _document_events(documents: list[Any]) -> Iterator[ev.Event]:
    yield ev.StreamStartEvent()
    for index, document in enumerate(documents):
        yield ev.DocumentStartEvent(explicit=index > 0)
        yield from _value_events(document)
        yield ev.DocumentEndEvent(explicit=False)
    yield ev.StreamEndEvent()


def _value_events(value: Any) -> Iterator[ev.Event]:
    if isinstance(value, dict):
        yield ev.MappingStartEvent(None, _TAGS[_MAP], True, flow_style=not value)
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"mapping keys must be strings, got {key!r}")
            yield _string_event(key)
            yield from _value_events(item)
        yield ev.MappingEndEvent()
    elif isinstance(value, list | tuple):
        yield ev.SequenceStartEvent(None, _TAGS[_SEQ], True, flow_style=not value)
        for item in value:
            yield from _value_events(item)
        yield ev.SequenceEndEvent()
    elif isinstance(value, str):
        yield _string_event(value)
    else:
        yield _plain_event(*_non_string_scalar(value))


def _non_string_scalar(value: Any) -> tuple[str, str]:
    if value is None:
        return _NULL, "null"
    if isinstance(value, bool):
        return _BOOL, "true" if value else "false"
    if isinstance(value, int):
        return _INT, str(value)
    if isinstance(value, float):
        text = repr(value)
        if not _CORE_FLOAT.fullmatch(text):
            raise ValueError(f"{value!r} has no JSON representation")
        return _FLOAT, text
    raise TypeError(f"{type(value).__name__} is not JSON data: {value!r}")


def _plain_event(tag: str, text: str) -> ev.ScalarEvent:
    # implicit = (plain form resolves to this tag, quoted form does, core tag)
    return ev.ScalarEvent(None, _TAGS[tag], (True, False, True), text)


def _string_event(value: str) -> ev.ScalarEvent:
    # Plain style only when both YAML 1.2 (us) and 1.1 (kubectl) read a string;
    # the emitter adds its own syntactic checks (leading "- ", ": ", "#"...).
    plain_is_string = isinstance(_safe_resolve_plain(value), str) and not (
        _YAML11_NON_STRING.fullmatch(value)
    )
    style = None
    if _UNUSUAL_BREAKS.search(value):
        # The emitter writes these raw inside quotes, where a reader folds
        # them into spaces; double quotes escape them.
        style = '"'
    elif "\n" in value:
        style = '"' if _BLOCK_UNSAFE.search(value) else "|"
    return ev.ScalarEvent(
        None, _TAGS[_STR], (plain_is_string, True, True), value, style=style
    )


def _safe_resolve_plain(value: str) -> Any:
    try:
        return _resolve_plain(value)
    except _NonJsonScalar:
        return None  # .inf, a huge integer: not a string when plain
