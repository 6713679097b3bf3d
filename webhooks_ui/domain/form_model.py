"""The editor's form as plain data: an object shown field by field, and back.

``object_to_form`` turns a configuration into form data: plain strings and
lists, one entry per field the form shows, with nothing defaulted (defaults
are placeholders). ``form_to_object`` goes back *losslessly*: it starts from
a copy of the current object and replaces only the fields whose form value
differs from what that field shows now. A field whose value is unchanged is
left exactly as it was (type, key order, even a value the form cannot
represent), and anything the form does not model (future API fields,
annotations of tools, unknown keys) is never touched.

List items (webhooks, rules, match expressions, match conditions) carry the
position they had in the current object in a hidden ``index`` field: a row is
merged onto that item, so reordering, adding (index "") and removing rows
keep every unknown field of the items that remain.

Field keys (``w-0-r-1-operations``) are the names the form posts; the same
scheme maps an apiserver field path to the form field that shows it.

Form values are never validated here: the object they make is validated by
``validation.validate`` like any other (one home for the rules). A value that
does not convert (timeoutSeconds "abc") goes into the object as typed, so the
validator reports it at its path and nothing typed is lost.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from webhooks_ui.domain.defaulting import json_copy, webhook_default
from webhooks_ui.domain.kinds import MUTATING
from webhooks_ui.domain.manifest import dump_yaml

# A key that is absent from its mapping (None is an explicit JSON null).
_MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()

# D-3 and D-4 of defaulting.py, shown as placeholders.
RULE_SCOPE_DEFAULT = "*"
SERVICE_PORT_DEFAULT = 443

SERVICE = "service"
URL = "url"
SELECTORS = (("namespaceSelector", "ns"), ("objectSelector", "os"))
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
CORE_GROUP_TOKEN = '""'

# Form field name -> object key, per level (in the API reference's order).
WEBHOOK_TEXT_FIELDS = (
    ("failure_policy", "failurePolicy"),
    ("match_policy", "matchPolicy"),
    ("side_effects", "sideEffects"),
)
RULE_LIST_FIELDS = (
    ("api_groups", "apiGroups"),
    ("api_versions", "apiVersions"),
    ("resources", "resources"),
)
SERVICE_FIELDS = (
    ("service_namespace", "namespace"),
    ("service_name", "name"),
    ("service_path", "path"),
)

FormData = dict[str, Any]


# --- object -> form ------------------------------------------------------------


def object_to_form(obj: Mapping[str, Any], *, kind: str) -> FormData:
    """The form data showing ``obj`` (``kind`` decides reinvocationPolicy)."""
    metadata = _mapping(obj.get("metadata"))
    return {
        "name": text_of(metadata.get("name")),
        "labels": _pairs_of(metadata.get("labels")),
        "annotations": _pairs_of(metadata.get("annotations")),
        "webhooks": [
            _webhook_form(hook, index, kind)
            for index, hook in enumerate(_items(obj.get("webhooks")))
        ],
    }


def _webhook_form(hook: Mapping[str, Any], index: int, kind: str) -> FormData:
    client_config = _mapping(hook.get("clientConfig"))
    service = _mapping(client_config.get("service"))
    form: FormData = {
        "index": str(index),
        "name": text_of(hook.get("name")),
        "target": target_of(hook.get("clientConfig")),
        **{field: text_of(service.get(key)) for field, key in SERVICE_FIELDS},
        "service_port": text_of(service.get("port")),
        "url": text_of(client_config.get("url")),
        "ca_bundle": text_of(client_config.get("caBundle")),
        "rules": [
            _rule_form(rule, position)
            for position, rule in enumerate(_items(hook.get("rules")))
        ],
        **{field: text_of(hook.get(key)) for field, key in WEBHOOK_TEXT_FIELDS},
        "timeout_seconds": text_of(hook.get("timeoutSeconds")),
        "admission_review_versions": list_text_of(hook.get("admissionReviewVersions")),
        "match_conditions": [
            {
                "index": str(position),
                "name": text_of(condition.get("name")),
                "expression": text_of(condition.get("expression")),
            }
            for position, condition in enumerate(_items(hook.get("matchConditions")))
        ],
    }
    for key, short in SELECTORS:
        form[short] = _selector_form(hook.get(key))
    if kind == MUTATING:
        form["reinvocation_policy"] = text_of(hook.get("reinvocationPolicy"))
    return form


def _rule_form(rule: Mapping[str, Any], position: int) -> FormData:
    return {
        "index": str(position),
        "operations": values_of(rule.get("operations")),
        **{field: list_text_of(rule.get(key)) for field, key in RULE_LIST_FIELDS},
        "scope": text_of(rule.get("scope")),
    }


def _selector_form(selector: Any) -> FormData:
    selector = _mapping(selector)
    return {
        "ml": _pairs_of(selector.get("matchLabels")),
        "me": [
            {
                "index": str(position),
                "key": text_of(expression.get("key")),
                "operator": text_of(expression.get("operator")),
                "values": list_text_of(expression.get("values")),
            }
            for position, expression in enumerate(
                _items(selector.get("matchExpressions"))
            )
        ],
    }


def target_of(client_config: Any) -> str:
    """The clientConfig's target: "url" when it names a URL and no service."""
    if (
        isinstance(client_config, dict)
        and "url" in client_config
        and "service" not in client_config
    ):
        return URL
    return SERVICE


def text_of(value: Any) -> str:
    """How a scalar field shows in a text input (absent and null show empty)."""
    if value is None or value is _MISSING:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value)


def list_text_of(value: Any) -> str:
    """A []string as comma-separated text; the empty string (the core API
    group) shows as ``""``."""
    if value is None or value is _MISSING:
        return ""
    if not isinstance(value, list):
        return text_of(value)
    return ", ".join(
        CORE_GROUP_TOKEN if item == "" else text_of(item) for item in value
    )


def values_of(value: Any) -> list[str]:
    """A []string as the values of checkboxes."""
    if value is None or value is _MISSING:
        return []
    if not isinstance(value, list):
        return [text_of(value)]
    return [text_of(item) for item in value]


def parse_list(text: str) -> list[str]:
    """Comma-separated text as a []string (``""`` is the empty string)."""
    tokens = (token.strip() for token in text.split(","))
    return ["" if token in ('""', "''") else token for token in tokens if token]


def _pairs_of(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, dict):
        return []
    return [{"key": str(k), "value": text_of(v)} for k, v in value.items()]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [item if isinstance(item, dict) else {} for item in value]


def form_blockers(obj: Any) -> list[str]:
    """Paths whose shape the form cannot show (a list where an object belongs,
    ...); empty when the form can edit ``obj`` without losing anything."""
    if not isinstance(obj, dict):
        return ["(the document is not an object)"]
    found: list[str] = []

    def expect(value: Any, kind: type, path: str) -> bool:
        if value is None:
            return False
        if not isinstance(value, kind):
            found.append(path)
            return False
        return True

    metadata = obj.get("metadata")
    if expect(metadata, dict, "metadata"):
        expect(metadata.get("labels"), dict, "metadata.labels")
        expect(metadata.get("annotations"), dict, "metadata.annotations")
    webhooks = obj.get("webhooks")
    if not expect(webhooks, list, "webhooks"):
        return found
    for index, hook in enumerate(webhooks):
        path = f"webhooks[{index}]"
        if not isinstance(hook, dict):
            found.append(path)
            continue
        client_config = hook.get("clientConfig")
        if expect(client_config, dict, f"{path}.clientConfig"):
            expect(client_config.get("service"), dict, f"{path}.clientConfig.service")
        _expect_items(hook.get("rules"), f"{path}.rules", expect, found)
        _expect_items(
            hook.get("matchConditions"), f"{path}.matchConditions", expect, found
        )
        for key, _ in SELECTORS:
            selector = hook.get(key)
            if expect(selector, dict, f"{path}.{key}"):
                expect(selector.get("matchLabels"), dict, f"{path}.{key}.matchLabels")
                _expect_items(
                    selector.get("matchExpressions"),
                    f"{path}.{key}.matchExpressions",
                    expect,
                    found,
                )
    return found


def _expect_items(
    value: Any, path: str, expect: Callable[[Any, type, str], bool], found: list[str]
) -> None:
    if expect(value, list, path):
        for position, item in enumerate(value):
            if not isinstance(item, dict):
                found.append(f"{path}[{position}]")


# --- form -> object --------------------------------------------------------------


def form_to_object(
    form: Mapping[str, Any], current: Mapping[str, Any], *, kind: str
) -> dict[str, Any]:
    """``current`` with the form's changes merged in; nothing else changes."""
    obj = json_copy(dict(current))
    existing = obj.get("metadata")
    metadata = existing if isinstance(existing, dict) else {}
    _put_text(metadata, "name", form.get("name", ""))
    _put_pairs(metadata, "labels", form.get("labels", []))
    _put_pairs(metadata, "annotations", form.get("annotations", []))
    if metadata or isinstance(existing, dict):
        obj["metadata"] = metadata
    _merge_items(
        obj,
        "webhooks",
        form.get("webhooks", []),
        lambda hook, row: _merge_webhook(hook, row, kind),
    )
    return obj


def _merge_webhook(hook: dict[str, Any], row: Mapping[str, Any], kind: str) -> None:
    _put_text(hook, "name", row.get("name", ""))
    _merge_client_config(hook, row)
    _merge_items(hook, "rules", row.get("rules", []), _merge_rule)
    for field, key in WEBHOOK_TEXT_FIELDS[:2]:
        _put_text(hook, key, row.get(field, ""))
    for key, short in SELECTORS:
        _merge_selector(hook, key, row.get(short) or {})
    _put_text(hook, "sideEffects", row.get("side_effects", ""))
    _put_int(hook, "timeoutSeconds", row.get("timeout_seconds", ""))
    _put_list(hook, "admissionReviewVersions", row.get("admission_review_versions", ""))
    _merge_items(
        hook, "matchConditions", row.get("match_conditions", []), _merge_condition
    )
    if kind == MUTATING and "reinvocation_policy" in row:
        _put_text(hook, "reinvocationPolicy", row["reinvocation_policy"])


def _merge_client_config(hook: dict[str, Any], row: Mapping[str, Any]) -> None:
    existing = hook.get("clientConfig")
    client_config = existing if isinstance(existing, dict) else {}
    shown = target_of(existing)
    chosen = row.get("target") or shown
    if chosen == URL:
        if shown != URL:
            client_config.pop("service", None)
        _put_text(client_config, "url", row.get("url", ""))
    else:
        if shown != SERVICE:
            client_config.pop("url", None)
        old_service = client_config.get("service")
        service = old_service if isinstance(old_service, dict) else {}
        for field, key in SERVICE_FIELDS:
            _put_text(service, key, row.get(field, ""))
        _put_int(service, "port", row.get("service_port", ""))
        if service or isinstance(old_service, dict):
            client_config["service"] = service
    _put_ca_bundle(client_config, row.get("ca_bundle", ""))
    if client_config or isinstance(existing, dict):
        hook["clientConfig"] = client_config


def _merge_rule(rule: dict[str, Any], row: Mapping[str, Any]) -> None:
    _put_values(rule, "operations", row.get("operations", []))
    for field, key in RULE_LIST_FIELDS:
        _put_list(rule, key, row.get(field, ""))
    _put_text(rule, "scope", row.get("scope", ""))


def _merge_selector(hook: dict[str, Any], key: str, row: Mapping[str, Any]) -> None:
    existing = hook.get(key)
    selector = existing if isinstance(existing, dict) else {}
    _put_pairs(selector, "matchLabels", row.get("ml", []))
    _merge_items(selector, "matchExpressions", row.get("me", []), _merge_expression)
    if selector or isinstance(existing, dict):
        hook[key] = selector


def _merge_expression(expression: dict[str, Any], row: Mapping[str, Any]) -> None:
    _put_text(expression, "key", row.get("key", ""))
    _put_text(expression, "operator", row.get("operator", ""))
    _put_list(expression, "values", row.get("values", ""))


def _merge_condition(condition: dict[str, Any], row: Mapping[str, Any]) -> None:
    _put_text(condition, "name", row.get("name", ""))
    _put_text(condition, "expression", _newlines(row.get("expression", "")))


def _merge_items(
    target: dict[str, Any],
    key: str,
    rows: list[Mapping[str, Any]],
    merge: Callable[[dict[str, Any], Mapping[str, Any]], None],
) -> None:
    """Rebuild the list ``target[key]`` from ``rows``, each merged onto the item
    at its ``index`` (a copy) or onto a new empty item."""
    current = target.get(key, _MISSING)
    items = current if isinstance(current, list) else []
    if not rows and not items:
        return
    result = []
    for row in rows:
        item = _item_at(items, row.get("index", ""))
        merge(item, row)
        result.append(item)
    if result:
        target[key] = result
    else:
        target.pop(key, None)


def _item_at(items: list[Any], index: Any) -> dict[str, Any]:
    if isinstance(index, str) and index.isdigit() and int(index) < len(items):
        item = items[int(index)]
        if isinstance(item, dict):
            return json_copy(item)
    return {}


def _put_text(target: dict[str, Any], key: str, submitted: str) -> None:
    current = target.get(key, _MISSING)
    if text_of(current) == submitted:
        return
    if submitted == "":
        target.pop(key, None)
    else:
        target[key] = submitted


def _put_int(target: dict[str, Any], key: str, submitted: str) -> None:
    current = target.get(key, _MISSING)
    if text_of(current) == submitted:
        return
    stripped = submitted.strip()
    if not stripped:
        target.pop(key, None)
    elif re.fullmatch(r"[+-]?\d{1,12}", stripped):
        target[key] = int(stripped)
    else:
        # Kept as typed: the validator reports it ("must be an integer").
        target[key] = submitted


def _put_list(target: dict[str, Any], key: str, submitted: str) -> None:
    current = target.get(key, _MISSING)
    values = parse_list(submitted)
    if list_text_of(current) == submitted or values == current:
        return
    if not values:
        target.pop(key, None)
    else:
        target[key] = values


def _put_values(target: dict[str, Any], key: str, submitted: list[str]) -> None:
    current = target.get(key, _MISSING)
    if sorted(values_of(current)) == sorted(submitted):
        return
    if not submitted:
        target.pop(key, None)
        return
    kept = [value for value in values_of(current) if value in submitted]
    target[key] = kept + [value for value in submitted if value not in kept]


def _put_pairs(target: dict[str, Any], key: str, rows: list[Mapping[str, str]]) -> None:
    current = target.get(key, _MISSING)
    pairs = [
        (row.get("key", ""), row.get("value", ""))
        for row in rows
        if row.get("key", "") or row.get("value", "")
    ]
    if _pairs_of(current) == [{"key": k, "value": v} for k, v in pairs]:
        return
    if not pairs:
        target.pop(key, None)
        return
    old = current if isinstance(current, dict) else {}
    target[key] = {
        k: old[k] if k in old and text_of(old[k]) == v else v for k, v in pairs
    }


def _put_ca_bundle(client_config: dict[str, Any], submitted: str) -> None:
    current = client_config.get("caBundle", _MISSING)
    text = _newlines(submitted)
    if text_of(current) == text:
        return
    stripped = text.strip()
    if not stripped:
        client_config.pop("caBundle", None)
    elif "-----BEGIN" in stripped:
        # PEM pasted: the field holds its base64 ([]byte in JSON).
        client_config["caBundle"] = base64.b64encode(
            (stripped + "\n").encode("utf-8")
        ).decode("ascii")
    else:
        client_config["caBundle"] = re.sub(r"\s+", "", stripped)


def _newlines(text: str) -> str:
    """Browsers post textarea lines with CRLF; the object keeps LF."""
    return text.replace("\r\n", "\n")


def form_edit(
    current: Mapping[str, Any],
    text: str,
    submitted: FormData,
    *,
    kind: str,
    op: str = "",
) -> tuple[str, FormData]:
    """The draft's text after a form post, and the form data after its button.

    ``text`` itself when the form changed nothing (its formatting and comments
    kept); else the merged object as YAML.
    """
    if op:
        submitted = apply_op(submitted, op, kind=kind)
    obj = form_to_object(submitted, current, kind=kind)
    if json.dumps(obj) == json.dumps(current):
        return text, submitted
    return dump_yaml(obj), submitted


# --- the flat field names the form posts -------------------------------------

# Lists of rows: list key -> (form data path, blank row). Row keys are
# "<list key>-<position>", e.g. rules "w-0-r" hold rows "w-0-r-1".
_KV_ROW = {"key": "", "value": ""}


def blank_webhook(kind: str) -> FormData:
    """A new webhook's row: empty (it becomes ``{}`` in the object)."""
    row = _webhook_form({}, 0, kind)
    row["index"] = ""
    return row


def _blank(list_name: str, kind: str) -> FormData:
    if list_name == "w":
        return blank_webhook(kind)
    if list_name == "r":
        return {**_rule_form({}, 0), "index": ""}
    if list_name in ("labels", "annotations", "ml"):
        return dict(_KV_ROW)
    if list_name == "me":
        return {"index": "", "key": "", "operator": "", "values": ""}
    return {"index": "", "name": "", "expression": ""}


_LIST_KEY = re.compile(
    r"(?P<top>w|labels|annotations)"
    r"|w-(?P<hook>\d+)-(?:(?P<list>r|mc)|(?P<sel>ns|os)-(?P<part>ml|me))\Z"
)
_ROW_KEY = re.compile(r"(?P<list>.+)-(?P<position>\d+)\Z")


def list_at(form: FormData, list_key: str) -> list[FormData] | None:
    """The list of rows a list key names (``w``, ``w-0-r``, ``w-1-ns-me``...)."""
    match = _LIST_KEY.fullmatch(list_key)
    if match is None:
        return None
    if match["top"]:
        return form["webhooks" if match["top"] == "w" else match["top"]]
    hooks = form["webhooks"]
    position = int(match["hook"])
    if position >= len(hooks):
        return None
    hook = hooks[position]
    if match["list"]:
        return hook["rules" if match["list"] == "r" else "match_conditions"]
    return hook[match["sel"]][match["part"]]


def apply_op(form: FormData, op: str, *, kind: str) -> FormData:
    """A copy of ``form`` after a button: ``add:<list>``, ``remove:<row>``,
    ``up:<row>`` or ``down:<row>`` (e.g. ``add:w-0-r``, ``up:w-2``)."""
    result = json_copy(form)
    action, _, key = op.partition(":")
    if action == "add":
        rows = list_at(result, key)
        if rows is not None:
            rows.append(_blank(key.rsplit("-", 1)[-1], kind))
        return result
    match = _ROW_KEY.fullmatch(key)
    rows = list_at(result, match["list"]) if match else None
    if rows is None or match is None:
        return result
    position = int(match["position"])
    if position >= len(rows):
        return result
    if action == "remove":
        del rows[position]
    elif action == "up" and position > 0:
        rows[position - 1], rows[position] = rows[position], rows[position - 1]
    elif action == "down" and position + 1 < len(rows):
        rows[position + 1], rows[position] = rows[position], rows[position + 1]
    return result


_FIRST_FIELD = {"w": "name", "r": "operations", "me": "key", "mc": "name"}


def focus_after(form: FormData, op: str) -> str:
    """The field to focus after a button: the first field of an added row."""
    action, _, list_key = op.partition(":")
    rows = list_at(form, list_key) if action == "add" else None
    if not rows:
        return ""
    first = _FIRST_FIELD.get(list_key.rsplit("-", 1)[-1], "key")
    return f"{list_key}-{len(rows) - 1}-{first}"


def keep_blank_rows(rendered: FormData, submitted: FormData) -> FormData:
    """``rendered`` (from the saved object) with the empty key/value rows of
    ``submitted`` added back: an empty label row has no place in the object,
    but a user who just added one wants to see it."""
    result = json_copy(rendered)

    def blanks(rows: list[Mapping[str, str]]) -> list[dict[str, str]]:
        return [dict(_KV_ROW) for row in rows if not row["key"] and not row["value"]]

    for name in ("labels", "annotations"):
        result[name].extend(blanks(submitted.get(name, [])))
    for hook, sent in zip(
        result["webhooks"], submitted.get("webhooks", []), strict=False
    ):
        for _, short in SELECTORS:
            hook[short]["ml"].extend(blanks(sent.get(short, {}).get("ml", [])))
    return result


def flatten(form: FormData) -> dict[str, Any]:
    """Form data as the flat {field name: value} a browser posts."""
    flat: dict[str, Any] = {"name": form["name"]}
    for name in ("labels", "annotations"):
        _flatten_rows(flat, name, form[name])
    for position, hook in enumerate(form["webhooks"]):
        prefix = f"w-{position}"
        for field, value in hook.items():
            if field == "rules":
                _flatten_rows(flat, f"{prefix}-r", value)
            elif field == "match_conditions":
                _flatten_rows(flat, f"{prefix}-mc", value)
            elif field in ("ns", "os"):
                _flatten_rows(flat, f"{prefix}-{field}-ml", value["ml"])
                _flatten_rows(flat, f"{prefix}-{field}-me", value["me"])
            else:
                flat[f"{prefix}-{field}"] = value
    return flat


def _flatten_rows(flat: dict[str, Any], list_key: str, rows: list[FormData]) -> None:
    for position, row in enumerate(rows):
        for field, value in row.items():
            flat[f"{list_key}-{position}-{field}"] = value


def unflatten(
    get: Callable[[str], str], getlist: Callable[[str], list[str]], names: list[str]
) -> FormData:
    """Form data from posted fields (``names``: every posted field name).

    Which rows exist is read from their ``index`` (or ``key``) fields, in the
    order of their positions; a missing field reads as empty.
    """
    form: FormData = {"name": get("name")}
    for name in ("labels", "annotations"):
        form[name] = _unflatten_kv(get, names, name)
    form["webhooks"] = []
    for position in _positions(names, "w", "index"):
        prefix = f"w-{position}"
        hook: FormData = {"index": get(f"{prefix}-index")}
        for field in (
            "name",
            "target",
            *(field for field, _ in SERVICE_FIELDS),
            "service_port",
            "url",
            "ca_bundle",
            *(field for field, _ in WEBHOOK_TEXT_FIELDS),
            "timeout_seconds",
            "admission_review_versions",
        ):
            hook[field] = get(f"{prefix}-{field}")
        if f"{prefix}-reinvocation_policy" in names:
            hook["reinvocation_policy"] = get(f"{prefix}-reinvocation_policy")
        hook["rules"] = [
            {
                "index": get(f"{prefix}-r-{rule}-index"),
                "operations": getlist(f"{prefix}-r-{rule}-operations"),
                **{
                    field: get(f"{prefix}-r-{rule}-{field}")
                    for field, _ in RULE_LIST_FIELDS
                },
                "scope": get(f"{prefix}-r-{rule}-scope"),
            }
            for rule in _positions(names, f"{prefix}-r", "index")
        ]
        for _, short in SELECTORS:
            base = f"{prefix}-{short}"
            hook[short] = {
                "ml": _unflatten_kv(get, names, f"{base}-ml"),
                "me": [
                    {
                        field: get(f"{base}-me-{row}-{field}")
                        for field in ("index", "key", "operator", "values")
                    }
                    for row in _positions(names, f"{base}-me", "index")
                ],
            }
        hook["match_conditions"] = [
            {
                field: get(f"{prefix}-mc-{row}-{field}")
                for field in ("index", "name", "expression")
            }
            for row in _positions(names, f"{prefix}-mc", "index")
        ]
        form["webhooks"].append(hook)
    return form


def _unflatten_kv(
    get: Callable[[str], str], names: list[str], list_key: str
) -> list[dict[str, str]]:
    return [
        {"key": get(f"{list_key}-{row}-key"), "value": get(f"{list_key}-{row}-value")}
        for row in _positions(names, list_key, "key")
    ]


def _positions(names: list[str], list_key: str, marker: str) -> list[int]:
    pattern = re.compile(re.escape(list_key) + r"-(\d+)-" + re.escape(marker) + r"\Z")
    found = {int(m[1]) for name in names if (m := pattern.match(name))}
    return sorted(found)


# --- apiserver field paths -> form fields -------------------------------------

_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_WEBHOOK_SCALARS = {
    "name": "name",
    "failurePolicy": "failure_policy",
    "matchPolicy": "match_policy",
    "sideEffects": "side_effects",
    "timeoutSeconds": "timeout_seconds",
    "admissionReviewVersions": "admission_review_versions",
    "reinvocationPolicy": "reinvocation_policy",
}
_RULE_FIELDS = {
    "operations": "operations",
    "apiGroups": "api_groups",
    "apiVersions": "api_versions",
    "resources": "resources",
    "scope": "scope",
}
_SERVICE_KEYS = {"namespace", "name", "path", "port"}


def field_key_for_path(path: str) -> str | None:
    """The form field (or group of fields) that shows apiserver field ``path``:
    the nearest one the form knows; None when the form has no place for it."""
    segments: list[str | int] = [
        name if name else int(index) for name, index in _SEGMENT.findall(path)
    ]
    if segments[:1] == ["metadata"] and len(segments) > 1:
        return {"name": "name", "labels": "labels", "annotations": "annotations"}.get(
            str(segments[1])
        )
    if (
        len(segments) < 2
        or segments[0] != "webhooks"
        or not isinstance(segments[1], int)
    ):
        return None
    prefix = f"w-{segments[1]}"
    rest = segments[2:]
    if not rest:
        return prefix
    head, tail = rest[0], rest[1:]
    if head in _WEBHOOK_SCALARS:
        return f"{prefix}-{_WEBHOOK_SCALARS[str(head)]}"
    if head == "clientConfig":
        return _client_config_key(prefix, tail)
    if head == "rules":
        return _row_key(f"{prefix}-r", tail, _RULE_FIELDS)
    if head == "matchConditions":
        fields = {"name": "name", "expression": "expression"}
        return _row_key(f"{prefix}-mc", tail, fields)
    for key, short in SELECTORS:
        if head == key:
            return _selector_key(f"{prefix}-{short}", tail)
    return prefix


def _client_config_key(prefix: str, tail: list[str | int]) -> str:
    if tail[:1] == ["url"]:
        return f"{prefix}-url"
    if tail[:1] == ["caBundle"]:
        return f"{prefix}-ca_bundle"
    if tail[:1] == ["service"] and len(tail) > 1 and tail[1] in _SERVICE_KEYS:
        return f"{prefix}-service_{tail[1]}"
    return f"{prefix}-target"


def _row_key(list_key: str, tail: list[str | int], fields: dict[str, str]) -> str:
    if not tail or not isinstance(tail[0], int):
        return list_key
    row = f"{list_key}-{tail[0]}"
    if len(tail) > 1 and tail[1] in fields:
        return f"{row}-{fields[str(tail[1])]}"
    return row


def _selector_key(prefix: str, tail: list[str | int]) -> str:
    if tail[:1] == ["matchLabels"]:
        return f"{prefix}-ml"
    if tail[:1] == ["matchExpressions"]:
        fields = {"key": "key", "operator": "operator", "values": "values"}
        return _row_key(f"{prefix}-me", tail[1:], fields)
    return prefix


# --- what the form shows around the values ---------------------------------------


def placeholders(kind: str) -> dict[str, str]:
    """The default each optional field takes when left empty (not written)."""
    return {
        "failure_policy": str(webhook_default("failurePolicy", kind=kind)),
        "match_policy": str(webhook_default("matchPolicy", kind=kind)),
        "timeout_seconds": str(webhook_default("timeoutSeconds", kind=kind)),
        "reinvocation_policy": str(webhook_default("reinvocationPolicy", kind=kind)),
        "scope": RULE_SCOPE_DEFAULT,
        "service_port": str(SERVICE_PORT_DEFAULT),
        "selector": "every object (no selector)",
    }
