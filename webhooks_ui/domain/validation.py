"""Validation of v1 Mutating/ValidatingWebhookConfiguration, as kube-apiserver does it.

A port of ``pkg/apis/admissionregistration/validation/validation.go`` (webhook
parts) and the helpers it calls, following docs/spec rules V-1..V-50 of
``apiserver-behaviour.md``. Errors come back in the apiserver's order: metadata,
then each webhook's fields in the order validation.go visits them, then its
admissionReviewVersions and the duplicate-name check.

The input is a plain dict from YAML, JSON or a form, so it may hold anything.
Where the apiserver's JSON decoder would refuse a wrong type, we report an
``Invalid`` error at that path (see ``fieldtypes``) and carry on; ``validate``
never raises on user input.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.cel import check_expression
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.errors import (
    DUPLICATE,
    INVALID,
    NOT_SUPPORTED,
    REQUIRED,
    TOO_LONG,
    TOO_MANY,
    FieldError,
)
from webhooks_ui.domain.fieldtypes import (
    int32_value,
    json_type_name,
    list_value,
    map_key,
    object_value,
    string_list,
    string_value,
    type_error,
)
from webhooks_ui.domain.kinds import API_VERSION_V1, KINDS, MUTATING
from webhooks_ui.domain.labels import (
    is_dns1035_label,
    is_fully_qualified_name,
    is_qualified_name,
    label_selector_has_errors,
    name_is_dns_subdomain,
    validate_label_name,
    validate_label_selector,
    validate_labels,
)
from webhooks_ui.domain.urls import validate_webhook_service, validate_webhook_url

# Supported values in the sorted order Go's sets.String.List() prints them.
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Equivalent", "Exact")
NO_SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun")
SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun", "Some", "Unknown")
REINVOCATION_POLICIES = ("IfNeeded", "Never")
ACCEPTED_ADMISSION_REVIEW_VERSIONS = ("v1", "v1beta1")
MAX_MATCH_CONDITIONS = 64
STATIC_CONFIG_SUFFIX = ".static.k8s.io"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
# names.SimpleNameGenerator: generateName is cut to 58 and 5 characters added.
_MAX_GENERATED_BASE = 58
_GENERATED_SUFFIX = "abcde"


@dataclass(frozen=True)
class ValidationOptions:
    """validation.go's validationOptions; the defaults are the strict create ones."""

    ignore_match_conditions: bool = False
    require_no_side_effects: bool = True
    require_recognized_admission_review_version: bool = True
    require_unique_webhook_names: bool = True
    allow_invalid_label_value_in_selector: bool = False


CREATE_OPTIONS = ValidationOptions()


def validate(
    obj: Any, old: Any = None, *, reserved_static_suffix: bool = True
) -> list[FieldError]:
    """The apiserver's validation errors for ``obj``; empty when it would be accepted.

    ``old`` given means an update of that stored object (section 3.9). Defaults
    are applied first (F-1) and ``metadata.namespace`` is dropped (F-2).
    ``reserved_static_suffix`` is the ManifestBasedAdmissionControlConfig gate
    (V-50): on, a create may not use a ``.static.k8s.io`` name.
    """
    header_errors = _validate_type(obj)
    if header_errors:
        return header_errors
    kind = obj["kind"]
    new = _normalise(obj)
    errors: list[FieldError] = []
    if old is None:
        options = CREATE_OPTIONS
    else:
        stored = _normalise(old, kind=kind)
        errors.extend(_validate_metadata_update(new, stored))
        options = update_options(new, stored)
    errors.extend(validate_object_meta(new.get("metadata")))
    webhooks = list_value(new.get("webhooks"), "webhooks", errors)
    hook_names: set[str] = set()
    for index, hook in enumerate(webhooks or ()):
        path = f"webhooks[{index}]"
        if object_value(hook, path, errors) is None:
            continue
        errors.extend(validate_webhook(hook, kind, options, path))
        errors.extend(
            validate_admission_review_versions(
                hook.get("admissionReviewVersions"),
                options.require_recognized_admission_review_version,
                f"{path}.admissionReviewVersions",
            )
        )
        name = hook.get("name")
        if options.require_unique_webhook_names and isinstance(name, str) and name:
            if name in hook_names:
                errors.append(FieldError(f"{path}.name", DUPLICATE, value=name))
            else:
                hook_names.add(name)
    if reserved_static_suffix and old is None:
        errors.extend(_validate_static_suffix(new.get("metadata")))
    return errors


def _validate_type(obj: Any) -> list[FieldError]:
    """apiVersion and kind: which type to decode into, decided before anything else."""
    if not isinstance(obj, dict):
        return [
            FieldError(
                "kind",
                REQUIRED,
                "expected a MutatingWebhookConfiguration or "
                "ValidatingWebhookConfiguration object, got " + json_type_name(obj),
            )
        ]
    errors = []
    api_version = obj.get("apiVersion")
    if api_version in (None, ""):
        errors.append(FieldError("apiVersion", REQUIRED, "apiVersion must be set"))
    elif api_version != API_VERSION_V1:
        errors.append(_not_supported("apiVersion", api_version, (API_VERSION_V1,)))
    kind = obj.get("kind")
    if kind in (None, ""):
        errors.append(FieldError("kind", REQUIRED, "kind must be set"))
    elif kind not in KINDS:
        errors.append(_not_supported("kind", kind, KINDS))
    return errors


def _normalise(obj: Any, kind: str | None = None) -> dict:
    """Defaulted copy without metadata.namespace (F-1, F-2); junk becomes ``{}``."""
    if not isinstance(obj, dict):
        return {}
    result = apply_defaults(obj, kind=kind)
    metadata = result.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("namespace", None)
    return result


def _not_supported(path: str, value: Any, supported: tuple[str, ...]) -> FieldError:
    quoted = ", ".join(json.dumps(item) for item in supported)
    shown = value if isinstance(value, str | int | float | bool) else str(value)
    return FieldError(path, NOT_SUPPORTED, f"supported values: {quoted}", shown)


# --- metadata (V-1, V-2, V-50) ----------------------------------------------


def validate_object_meta(metadata: Any) -> list[FieldError]:
    """ValidateObjectMeta with NameIsDNSSubdomain for a cluster-scoped object."""
    errors: list[FieldError] = []
    if metadata is None:
        metadata = {}
    if object_value(metadata, "metadata", errors) is None:
        return errors
    generate_name = string_value(
        metadata.get("generateName"), "metadata.generateName", errors
    )
    if generate_name:
        errors.extend(
            FieldError("metadata.generateName", INVALID, msg, generate_name)
            for msg in name_is_dns_subdomain(generate_name, prefix=True)
        )
    name = string_value(metadata.get("name"), "metadata.name", errors)
    if name is not None:
        if not name and generate_name:
            # The apiserver generates the name before validating it.
            name = generate_name[:_MAX_GENERATED_BASE] + _GENERATED_SUFFIX
        if not name:
            errors.append(
                FieldError(
                    "metadata.name", REQUIRED, "name or generateName is required"
                )
            )
        else:
            errors.extend(
                FieldError("metadata.name", INVALID, msg, name)
                for msg in name_is_dns_subdomain(name)
            )
    errors.extend(validate_labels(metadata.get("labels"), "metadata.labels"))
    errors.extend(validate_annotations(metadata.get("annotations")))
    return errors


def validate_annotations(annotations: Any) -> list[FieldError]:
    """Annotation keys are qualified names (case-insensitive); 256 KiB in total."""
    errors: list[FieldError] = []
    path = "metadata.annotations"
    if annotations is None or object_value(annotations, path, errors) is None:
        return errors
    total = 0
    for raw_key, raw_value in annotations.items():
        key = map_key(raw_key)
        errors.extend(
            FieldError(path, INVALID, msg, key)
            for msg in is_qualified_name(key.lower())
        )
        value = string_value(raw_value, path, errors)
        total += len(key) + len(value or "")
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(
            FieldError(
                path,
                TOO_LONG,
                f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes",
            )
        )
    return errors


def _validate_static_suffix(metadata: Any) -> list[FieldError]:
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, str) and name.endswith(STATIC_CONFIG_SUFFIX):
        return [
            FieldError(
                "metadata.name",
                INVALID,
                f'names ending with "{STATIC_CONFIG_SUFFIX}" are reserved for static '
                "manifest-based configurations and cannot be managed via the API",
                name,
            )
        ]
    return []


def _validate_metadata_update(new: dict, old: dict) -> list[FieldError]:
    """The generic update check that matters here: the name is immutable (F-4)."""
    new_meta, old_meta = new.get("metadata"), old.get("metadata")
    if not isinstance(new_meta, dict) or not isinstance(old_meta, dict):
        return []
    new_name, old_name = new_meta.get("name"), old_meta.get("name")
    if isinstance(new_name, str) and isinstance(old_name, str) and new_name != old_name:
        return [FieldError("metadata.name", INVALID, "field is immutable", new_name)]
    return []


# --- one webhook --------------------------------------------------------------


def validate_webhook(
    hook: dict, kind: str, options: ValidationOptions, path: str
) -> list[FieldError]:
    """validate{Validating,Mutating}Webhook: the fields in validation.go's order."""
    errors: list[FieldError] = []
    name = string_value(hook.get("name"), f"{path}.name", errors)
    if name is not None:
        errors.extend(is_fully_qualified_name(f"{path}.name", name))
    rules = list_value(hook.get("rules"), f"{path}.rules", errors)
    for index, rule in enumerate(rules or ()):
        rule_path = f"{path}.rules[{index}]"
        if object_value(rule, rule_path, errors) is not None:
            errors.extend(validate_rule_with_operations(rule, rule_path))
    errors.extend(_enum(hook, "failurePolicy", FAILURE_POLICIES, path))
    errors.extend(_enum(hook, "matchPolicy", MATCH_POLICIES, path))
    errors.extend(_validate_side_effects(hook, options, path))
    timeout = hook.get("timeoutSeconds")
    if timeout is not None:
        seconds = int32_value(timeout, f"{path}.timeoutSeconds", errors)
        if seconds is not None and not 1 <= seconds <= 30:
            errors.append(
                FieldError(
                    f"{path}.timeoutSeconds",
                    INVALID,
                    "the timeout value must be between 1 and 30 seconds",
                    seconds,
                )
            )
    for selector in ("namespaceSelector", "objectSelector"):
        errors.extend(
            validate_label_selector(
                hook.get(selector),
                f"{path}.{selector}",
                allow_invalid_label_value=options.allow_invalid_label_value_in_selector,
            )
        )
    if kind == MUTATING:
        errors.extend(_enum(hook, "reinvocationPolicy", REINVOCATION_POLICIES, path))
    errors.extend(
        validate_client_config(hook.get("clientConfig"), f"{path}.clientConfig")
    )
    if not options.ignore_match_conditions:
        errors.extend(
            validate_match_conditions(
                hook.get("matchConditions"), f"{path}.matchConditions"
            )
        )
    return errors


def _enum(
    hook: dict, field: str, supported: tuple[str, ...], path: str
) -> list[FieldError]:
    """An optional (pointer) enum field: absent is fine, anything else must match."""
    errors: list[FieldError] = []
    value = hook.get(field)
    if value is None:
        return errors
    text = string_value(value, f"{path}.{field}", errors)
    if text is not None and text not in supported:
        errors.append(_not_supported(f"{path}.{field}", text, supported))
    return errors


def _validate_side_effects(
    hook: dict, options: ValidationOptions, path: str
) -> list[FieldError]:
    """V-18 / V-40: required in v1; strict set unless the stored object was lax."""
    allowed = (
        NO_SIDE_EFFECT_CLASSES
        if options.require_no_side_effects
        else SIDE_EFFECT_CLASSES
    )
    field = f"{path}.sideEffects"
    value = hook.get("sideEffects")
    if value is None:
        return [
            FieldError(field, REQUIRED, f"must specify one of {', '.join(allowed)}")
        ]
    errors: list[FieldError] = []
    text = string_value(value, field, errors)
    if text is not None and text not in allowed:
        errors.append(_not_supported(field, text, allowed))
    return errors


# --- rules (V-7..V-15) ----------------------------------------------------------


def validate_rule_with_operations(rule: dict, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operations_path = f"{path}.operations"
    raw = rule.get("operations")
    operations = string_list(raw, operations_path, errors)
    if operations is not None:
        count = len(raw or ())
        values = [operation for _, operation in operations]
        if count == 0:
            errors.append(FieldError(operations_path, REQUIRED))
        if count > 1 and "*" in values:
            errors.append(
                FieldError(
                    operations_path,
                    INVALID,
                    "if '*' is present, must not specify other operations",
                    values,
                )
            )
        for index, operation in operations:
            if operation not in OPERATIONS:
                errors.append(
                    _not_supported(f"{operations_path}[{index}]", operation, OPERATIONS)
                )
    errors.extend(validate_rule(rule, path))
    return errors


def validate_rule(rule: dict, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    groups_path = f"{path}.apiGroups"
    raw_groups = rule.get("apiGroups")
    groups = string_list(raw_groups, groups_path, errors)
    if groups is not None:
        _check_wildcard_list(raw_groups, groups, groups_path, "API groups", errors)
    versions_path = f"{path}.apiVersions"
    raw_versions = rule.get("apiVersions")
    versions = string_list(raw_versions, versions_path, errors)
    if versions is not None:
        _check_wildcard_list(
            raw_versions, versions, versions_path, "API versions", errors
        )
        for index, version in versions:
            if version == "":
                errors.append(FieldError(f"{versions_path}[{index}]", REQUIRED))
    resources_path = f"{path}.resources"
    raw_resources = rule.get("resources")
    resources = string_list(raw_resources, resources_path, errors)
    if resources is not None:
        errors.extend(
            validate_resources(resources, len(raw_resources or ()), resources_path)
        )
    scope = rule.get("scope")
    if scope is not None:
        text = string_value(scope, f"{path}.scope", errors)
        if text is not None and text not in SCOPES:
            errors.append(_not_supported(f"{path}.scope", text, SCOPES))
    return errors


def _check_wildcard_list(
    raw: Any,
    entries: list[tuple[int, str]],
    path: str,
    noun: str,
    errors: list[FieldError],
) -> None:
    count = len(raw or ())
    values = [value for _, value in entries]
    if count == 0:
        errors.append(FieldError(path, REQUIRED))
    if count > 1 and "*" in values:
        errors.append(
            FieldError(
                path,
                INVALID,
                f"if '*' is present, must not specify other {noun}",
                values,
            )
        )


def validate_resources(
    resources: list[tuple[int, str]], count: int, path: str
) -> list[FieldError]:
    """validateResources: order-dependent wildcard conflicts (V-12, V-13)."""
    errors: list[FieldError] = []
    if count == 0:
        errors.append(FieldError(path, REQUIRED))
    wildcard_subresource_of: set[str] = set()  # "x/*" seen
    wildcard_resource_for: set[str] = set()  # "*/x" seen
    has_double_wildcard = False
    has_single_wildcard = False
    has_resource_without_subresource = False
    for index, entry in resources:
        if entry == "":
            errors.append(FieldError(f"{path}[{index}]", REQUIRED))
            continue
        if entry == "*/*":
            has_double_wildcard = True
        if entry == "*":
            has_single_wildcard = True
        resource, slash, subresource = entry.partition("/")
        if not slash:
            # Overwritten by each such entry: only the last one counts (V-13).
            has_resource_without_subresource = entry != "*"
            continue
        if resource in wildcard_subresource_of:
            errors.append(
                FieldError(
                    f"{path}[{index}]",
                    INVALID,
                    f"if '{resource}/*' is present, must not specify {entry}",
                    entry,
                )
            )
        if subresource in wildcard_resource_for:
            errors.append(
                FieldError(
                    f"{path}[{index}]",
                    INVALID,
                    f"if '*/{subresource}' is present, must not specify {entry}",
                    entry,
                )
            )
        if subresource == "*":
            wildcard_subresource_of.add(resource)
        if resource == "*":
            wildcard_resource_for.add(subresource)
    values = [entry for _, entry in resources]
    if count > 1 and has_double_wildcard:
        errors.append(
            FieldError(
                path,
                INVALID,
                "if '*/*' is present, must not specify other resources",
                values,
            )
        )
    if has_single_wildcard and has_resource_without_subresource:
        errors.append(
            FieldError(
                path,
                INVALID,
                "if '*' is present, must not specify other resources without "
                "subresources",
                values,
            )
        )
    return errors


# --- admissionReviewVersions (V-21..V-24) -------------------------------------


def validate_admission_review_versions(
    raw: Any, require_recognized: bool, path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    versions = string_list(raw, path, errors)
    if versions is None:
        return errors
    accepted = ", ".join(ACCEPTED_ADMISSION_REVIEW_VERSIONS)
    if not raw:
        errors.append(FieldError(path, REQUIRED, f"must specify one of {accepted}"))
        return errors
    seen: set[str] = set()
    has_accepted = False
    for index, version in versions:
        if version in seen:
            errors.append(
                FieldError(f"{path}[{index}]", INVALID, "duplicate version", version)
            )
            continue
        seen.add(version)
        errors.extend(
            FieldError(f"{path}[{index}]", INVALID, msg, version)
            for msg in is_dns1035_label(version)
        )
        if version in ACCEPTED_ADMISSION_REVIEW_VERSIONS:
            has_accepted = True
    if require_recognized and not has_accepted:
        errors.append(
            FieldError(
                path,
                INVALID,
                f"must include at least one of {accepted}",
                [version for _, version in versions],
            )
        )
    return errors


# --- clientConfig (V-25..V-29) -------------------------------------------------


def validate_client_config(client_config: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if client_config is None:
        client_config = {}
    if object_value(client_config, path, errors) is None:
        return errors
    _check_ca_bundle(client_config.get("caBundle"), f"{path}.caBundle", errors)
    url, service = client_config.get("url"), client_config.get("service")
    if url is not None and not isinstance(url, str):
        errors.append(type_error(f"{path}.url", url, "a string"))
        return errors
    if service is not None and object_value(service, f"{path}.service", errors) is None:
        return errors
    if (url is None) == (service is None):
        errors.append(
            FieldError(path, REQUIRED, "exactly one of url or service is required")
        )
    elif url is not None:
        errors.extend(validate_webhook_url(f"{path}.url", url))
    else:
        errors.extend(_validate_service(service, f"{path}.service"))
    return errors


def _validate_service(service: dict, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = string_value(service.get("name"), f"{path}.name", errors)
    namespace = string_value(service.get("namespace"), f"{path}.namespace", errors)
    url_path = service.get("path")
    if url_path is not None:
        url_path = string_value(url_path, f"{path}.path", errors)
    port = service.get("port")
    if port is not None:
        port = int32_value(port, f"{path}.port", errors)
    errors.extend(validate_webhook_service(path, name, namespace, url_path, port))
    return errors


def _check_ca_bundle(value: Any, path: str, errors: list[FieldError]) -> None:
    """caBundle is []byte: JSON carries it as standard, padded base64 (V-29)."""
    if value is None:
        return
    text = string_value(value, path, errors)
    if not text:
        return
    try:
        # Go's decoder skips \r and \n, and nothing else.
        base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        errors.append(
            FieldError(path, INVALID, "must be a base64-encoded string", "<caBundle>")
        )


# --- matchConditions (V-34..V-37) ---------------------------------------------


def validate_match_conditions(raw: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    conditions = list_value(raw, path, errors)
    if conditions is None:
        return errors
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(
            FieldError(
                path,
                TOO_MANY,
                f"must have at most {MAX_MATCH_CONDITIONS} items",
                len(conditions),
            )
        )
    names: set[str] = set()
    for index, condition in enumerate(conditions):
        condition_path = f"{path}[{index}]"
        if object_value(condition, condition_path, errors) is None:
            continue
        errors.extend(_validate_match_condition(condition, condition_path))
        name = condition.get("name")
        if isinstance(name, str) and name:
            if name in names:
                errors.append(
                    FieldError(f"{condition_path}.name", DUPLICATE, value=name)
                )
            else:
                names.add(name)
    return errors


def _validate_match_condition(condition: dict, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    expression_path = f"{path}.expression"
    expression = string_value(condition.get("expression"), expression_path, errors)
    if expression is not None:
        trimmed = expression.strip()
        if not trimmed:
            errors.append(FieldError(expression_path, REQUIRED))
        else:
            detail = check_expression(trimmed)
            if detail is not None:
                errors.append(FieldError(expression_path, INVALID, detail, trimmed))
    name_path = f"{path}.name"
    name = string_value(condition.get("name"), name_path, errors)
    if name is not None:
        if not name:
            errors.append(FieldError(name_path, REQUIRED))
        else:
            errors.extend(validate_label_name(name, name_path))
    return errors


# --- update options (V-40..V-44) ------------------------------------------------


def update_options(new: dict, old: dict) -> ValidationOptions:
    """The relaxations an update earns from what is already stored (section 3.9).

    Both objects are expected defaulted; junk in ``old`` only ever makes
    the options stricter or leaves them as on create.
    """
    old_hooks = _hooks(old)
    new_hooks = _hooks(new)
    return ValidationOptions(
        ignore_match_conditions=_match_conditions_unchanged(new_hooks, old_hooks),
        require_no_side_effects=all(
            hook.get("sideEffects") in NO_SIDE_EFFECT_CLASSES for hook in old_hooks
        ),
        require_recognized_admission_review_version=all(
            _has_accepted_version_or_none(hook) for hook in old_hooks
        ),
        require_unique_webhook_names=_names_unique(old_hooks),
        allow_invalid_label_value_in_selector=any(
            _selector_is_invalid(hook.get(selector))
            for hook in old_hooks
            for selector in ("namespaceSelector", "objectSelector")
        ),
    )


def _hooks(obj: dict) -> list[dict]:
    """Webhooks of an object; a non-object entry counts as an empty webhook."""
    webhooks = obj.get("webhooks")
    if not isinstance(webhooks, list):
        return []
    return [hook if isinstance(hook, dict) else {} for hook in webhooks]


def _has_accepted_version_or_none(hook: dict) -> bool:
    versions = hook.get("admissionReviewVersions")
    if not versions:
        return True
    if not isinstance(versions, list):
        return False
    return any(version in ACCEPTED_ADMISSION_REVIEW_VERSIONS for version in versions)


def _names_unique(hooks: list[dict]) -> bool:
    names: list[Any] = []
    for hook in hooks:
        name = hook.get("name")
        # Go compares strings; null decodes to "" and empty names count (V-41).
        key = "" if name is None else name if isinstance(name, str) else repr(name)
        if key in names:
            return False
        names.append(key)
    return True


def _selector_is_invalid(selector: Any) -> bool:
    return selector is not None and label_selector_has_errors(selector)


def _match_conditions_unchanged(new_hooks: list[dict], old_hooks: list[dict]) -> bool:
    """V-44: same webhook count and identical matchConditions at every index."""
    if len(new_hooks) != len(old_hooks):
        return False
    try:
        return all(
            (new.get("matchConditions") or []) == (old.get("matchConditions") or [])
            for new, old in zip(new_hooks, old_hooks, strict=True)
        )
    except RecursionError:
        # Deeply nested junk: cannot prove "unchanged", so validate everything.
        return False
