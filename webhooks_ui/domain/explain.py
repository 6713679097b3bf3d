"""Every field of one webhook, explained in plain English for the configuration page.

``explain_webhook`` walks the API reference's field list for the kind (the
mutating kind adds reinvocationPolicy), says what the stored value does, and
marks values that only exist because kube-apiserver defaulted them. It never
raises on a value of the wrong type or an unknown enum: those are explained as
such (validation.py is the place that rejects them).

Severity is a tone for styling, not a validation result: "ok" (sound),
"info" (worth knowing), "warn" (a trade-off that can hurt), "danger" (the
apiserver rejects it, or calls will fail).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from webhooks_ui.domain.defaulting import apply_defaults, json_copy, webhook_default
from webhooks_ui.domain.kinds import (
    API_VERSION_V1,
    MUTATING,
    MUTATING_ONLY_WEBHOOK_FIELDS,
    WEBHOOK_FIELDS,
)

OK = "ok"
INFO = "info"
WARN = "warn"
DANGER = "danger"

UNRECOGNISED = "Unrecognised field (kept as is)"

_COMMON_FIELDS = WEBHOOK_FIELDS
_MUTATING_FIELDS = MUTATING_ONLY_WEBHOOK_FIELDS
_CLIENT_CONFIG_FIELDS = ("service", "url", "caBundle")
_SERVICE_FIELDS = ("namespace", "name", "port", "path")
_ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")


@dataclass(frozen=True)
class FieldExplanation:
    """One explained field of a webhook.

    ``path`` is relative to the webhook unless a prefix was given
    (``clientConfig.service.port``); ``is_default`` is True when the raw
    webhook did not set the field, or set it to the apiserver's default.
    """

    path: str
    label: str
    value: Any
    is_default: bool
    text: str
    severity: str


def webhook_fields(kind: str) -> tuple[str, ...]:
    """The webhook fields of the API reference for ``kind``, in reference order."""
    return _COMMON_FIELDS + (_MUTATING_FIELDS if kind == MUTATING else ())


def explain_webhook(
    raw_webhook: Mapping[str, Any],
    *,
    kind: str,
    path_prefix: str = "",
    ca_injector: str | None = None,
) -> list[FieldExplanation]:
    """Explanations for every field of the kind's webhook type, then unknown fields.

    ``ca_injector`` names what injects the caBundle on the cluster (see
    ``ownership.detect_owners``), so a manifest without one is not flagged.
    """
    raw = dict(raw_webhook) if isinstance(raw_webhook, Mapping) else {}
    wrapper = {"apiVersion": API_VERSION_V1, "kind": kind, "webhooks": [json_copy(raw)]}
    defaulted = apply_defaults(wrapper, kind=kind)["webhooks"][0]
    ctx = _Context(raw, defaulted, kind, path_prefix, ca_injector)
    ctx.name()
    ctx.client_config()
    ctx.rules()
    ctx.failure_policy()
    ctx.match_policy()
    ctx.selector("namespaceSelector")
    ctx.selector("objectSelector")
    ctx.side_effects()
    ctx.timeout()
    ctx.review_versions()
    ctx.match_conditions()
    if kind == MUTATING:
        ctx.reinvocation_policy()
    known = set(webhook_fields(kind))
    for key in raw:
        if key not in known:
            ctx.add(str(key), str(key), raw[key], False, UNRECOGNISED, INFO)
    return ctx.items


class _Context:
    """Collects explanations; knows the raw and the defaulted webhook."""

    def __init__(
        self,
        raw: dict[str, Any],
        defaulted: dict[str, Any],
        kind: str,
        prefix: str,
        ca_injector: str | None,
    ) -> None:
        self.raw = raw
        self.webhook = defaulted
        self.kind = kind
        self.prefix = prefix
        self.ca_injector = ca_injector
        self.items: list[FieldExplanation] = []

    def add(
        self, path: str, label: str, value: Any, is_default: bool, text: str, tone: str
    ) -> None:
        full = f"{self.prefix}.{path}" if self.prefix else path
        self.items.append(FieldExplanation(full, label, value, is_default, text, tone))

    def defaulted(self, key: str) -> bool:
        # The apiserver stores defaulted objects, so a synced value equal to
        # the default cannot be told apart from one it filled in: both are
        # shown as the default.
        if self.raw.get(key) is None:
            return self.webhook.get(key) is not None
        default = webhook_default(key, kind=self.kind)
        return default is not None and self.raw.get(key) == default

    # -- fields, in API reference order ------------------------------------

    def name(self) -> None:
        name = self.webhook.get("name")
        if isinstance(name, str) and name:
            text = (
                f"The webhook is called {name}. Names are unique within the "
                "configuration; changes and patches pair webhooks by name."
            )
            self.add("name", "Name", name, False, text, OK)
        else:
            text = "No name: every webhook needs a unique, fully qualified name."
            self.add("name", "Name", name, False, text, DANGER)

    def client_config(self) -> None:
        config = self.webhook.get("clientConfig")
        raw_config = _mapping(self.raw.get("clientConfig"))
        if not isinstance(config, Mapping):
            text = (
                "No clientConfig: the apiserver does not know where to send requests."
            )
            self.add("clientConfig", "Endpoint", config, False, text, DANGER)
            return
        service = config.get("service")
        url = config.get("url")
        if service is not None and url is not None:
            text = (
                "Both service and url are set; exactly one is allowed, so the "
                "apiserver rejects this configuration."
            )
            self.add("clientConfig", "Endpoint", dict(config), False, text, DANGER)
        elif service is None and url is None:
            text = "Neither service nor url is set: there is nowhere to send requests."
            self.add("clientConfig", "Endpoint", dict(config), False, text, DANGER)
        elif service is not None:
            text = (
                "Reached through an in-cluster Service; the apiserver connects over "
                "TLS and checks the certificate against the caBundle."
            )
            self.add("clientConfig", "Endpoint", dict(config), False, text, OK)
        else:
            text = "Reached at a URL; the apiserver connects over TLS."
            self.add("clientConfig", "Endpoint", dict(config), False, text, OK)
        if service is not None:
            self._service(service, _mapping(raw_config.get("service")))
        if url is not None:
            self._url(url)
        self._ca_bundle(config.get("caBundle"), has_service=service is not None)
        for key in config:
            if key not in _CLIENT_CONFIG_FIELDS:
                path = f"clientConfig.{key}"
                self.add(path, str(key), config[key], False, UNRECOGNISED, INFO)

    def _service(self, service: Any, raw_service: Mapping[str, Any]) -> None:
        if not isinstance(service, Mapping):
            text = "The service reference is not an object and cannot be used."
            self.add("clientConfig.service", "Service", service, False, text, DANGER)
            return
        namespace = service.get("namespace")
        name = service.get("name")
        port = service.get("port")
        path = service.get("path")
        target = f"https://{name}.{namespace}.svc:{port}{path or '/'}"
        text = f"Calls the in-cluster Service {namespace}/{name} at {target}."
        self.add("clientConfig.service", "Service", dict(service), False, text, OK)
        for key, label, value in (
            ("namespace", "Service namespace", namespace),
            ("name", "Service name", name),
        ):
            if isinstance(value, str) and value:
                text = f"The Service is looked up in namespace {namespace}."
                if key == "name":
                    text = (
                        f"Requests go to Service {value}; the serving certificate "
                        f"must be valid for {name}.{namespace}.svc."
                    )
                self.add(f"clientConfig.service.{key}", label, value, False, text, OK)
            else:
                text = f"Missing: the service {key} is required."
                self.add(
                    f"clientConfig.service.{key}", label, value, False, text, DANGER
                )
        port_default = raw_service.get("port") is None and port is not None
        if _is_int(port) and 1 <= port <= 65535:
            text = (
                f"Connects to port {port} of the Service (the Service port, "
                "not the pod's)."
            )
            if port_default:
                text += " 443 is the default."
            self.add("clientConfig.service.port", "Port", port, port_default, text, OK)
        else:
            text = f"Port {port!r} is not a valid port number (1-65535)."
            self.add(
                "clientConfig.service.port", "Port", port, port_default, text, DANGER
            )
        if path is None:
            text = "No path: requests are sent to / on the Service."
            self.add("clientConfig.service.path", "Path", None, False, text, INFO)
        else:
            text = f"Requests are sent to the path {path or '/'} on the Service."
            self.add("clientConfig.service.path", "Path", path, False, text, OK)
        for key in service:
            if key not in _SERVICE_FIELDS:
                field = f"clientConfig.service.{key}"
                self.add(field, str(key), service[key], False, UNRECOGNISED, INFO)

    def _url(self, url: Any) -> None:
        if not isinstance(url, str):
            text = "The url is not a string and cannot be used."
            self.add("clientConfig.url", "URL", url, False, text, DANGER)
            return
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
            scheme = parts.scheme.lower()
        except ValueError:
            host, scheme = "", ""
        text = (
            f"Calls {url} directly. The apiserver resolves this host itself, "
            "outside the cluster's Service network."
        )
        tone = INFO
        if scheme != "https":
            text = f"Calls {url}; the apiserver only accepts https:// URLs."
            tone = DANGER
        elif host in ("localhost", "127.0.0.1", "::1"):
            text += (
                " A loopback host only works if the webhook runs next to every "
                "apiserver instance."
            )
            tone = WARN
        self.add("clientConfig.url", "URL", url, False, text, tone)

    def _ca_bundle(self, value: Any, *, has_service: bool) -> None:
        path = "clientConfig.caBundle"
        if isinstance(value, str) and value:
            text = (
                f"A CA bundle is set ({len(value)} characters of base64): the "
                "webhook's serving certificate must chain to it."
            )
            self.add(path, "CA bundle", value, False, text, OK)
            return
        if self.ca_injector:
            text = (
                f"Not set here: {self.ca_injector} injects the CA bundle on the "
                "cluster, so it differs per cluster and is left out of comparisons."
            )
            self.add(path, "CA bundle", value, False, text, INFO)
            return
        text = (
            "No CA bundle: the apiserver checks the webhook's certificate "
            "against its own system trust roots."
        )
        tone = INFO
        if has_service:
            text += (
                " An in-cluster Service certificate is rarely signed by those, "
                "so calls fail unless a caBundle is set or injected."
            )
            tone = WARN
        self.add(path, "CA bundle", value, False, text, tone)

    def rules(self) -> None:
        rules = self.webhook.get("rules")
        raw_rules = self.raw.get("rules")
        if not isinstance(rules, list) or not rules:
            text = "No rules: this webhook matches no request and is never called."
            self.add("rules", "Rules", rules, False, text, WARN)
            return
        count = len(rules)
        text = (
            "Called when a request matches this rule."
            if count == 1
            else f"Called when a request matches any one of these {count} rules."
        )
        self.add("rules", "Rules", rules, False, text, INFO)
        for index, rule in enumerate(rules):
            raw_rule = raw_rules[index] if isinstance(raw_rules, list) else None
            self._rule(index, rule, _mapping(raw_rule))

    def _rule(self, index: int, rule: Any, raw_rule: Mapping[str, Any]) -> None:
        path = f"rules[{index}]"
        label = f"Rule {index + 1}"
        if not isinstance(rule, Mapping):
            text = "This rule is not an object and matches nothing."
            self.add(path, label, rule, False, text, DANGER)
            return
        text = describe_rule(rule)
        scope_default = raw_rule.get("scope") is None and rule.get("scope") is not None
        if scope_default:
            text += "; scope not set, so the default * applies."
        else:
            text += "."
        tone = WARN if _is_broad(rule) else OK
        if tone == WARN:
            text += " This covers nearly every request in the cluster."
        self.add(path, label, dict(rule), False, text, tone)
        for key in rule:
            if key not in (
                "operations",
                "apiGroups",
                "apiVersions",
                "resources",
                "scope",
            ):
                self.add(
                    f"{path}.{key}", str(key), rule[key], False, UNRECOGNISED, INFO
                )

    def failure_policy(self) -> None:
        policy = self.webhook.get("failurePolicy")
        timeout = self.webhook.get("timeoutSeconds")
        after = f"slower than {timeout} s" if _is_int(timeout) else "times out"
        if policy == "Fail":
            text = (
                f"Fails closed: if this webhook is down, errors or is {after}, "
                "matching requests are rejected."
            )
            tone = WARN
        elif policy == "Ignore":
            text = (
                f"Fails open: if this webhook is down, errors or is {after}, "
                "requests are admitted without this webhook's check."
            )
            tone = INFO
        else:
            text = f"{policy!r} is not a failure policy (Fail or Ignore)."
            tone = DANGER
        if self.defaulted("failurePolicy"):
            text += " Fail is the default."
        self.add(
            "failurePolicy",
            "Failure policy",
            policy,
            self.defaulted("failurePolicy"),
            text,
            tone,
        )

    def match_policy(self) -> None:
        policy = self.webhook.get("matchPolicy")
        if policy == "Equivalent":
            text = (
                "Equivalent: also called when a listed resource is changed "
                "through another API group or version (for example apps/v1beta2 "
                "deployments); the request is converted to the version in the rule."
            )
            tone = OK
        elif policy == "Exact":
            text = (
                "Exact: only requests through exactly the listed groups and "
                "versions; the same object changed through another API version "
                "skips this webhook."
            )
            tone = INFO
        else:
            text = f"{policy!r} is not a match policy (Exact or Equivalent)."
            tone = DANGER
        is_default = self.defaulted("matchPolicy")
        if is_default:
            text += " Equivalent is the default."
        self.add("matchPolicy", "Match policy", policy, is_default, text, tone)

    def selector(self, key: str) -> None:
        selector = self.webhook.get(key)
        is_default = self.defaulted(key)
        namespaces = key == "namespaceSelector"
        label = "Namespace selector" if namespaces else "Object selector"
        if not isinstance(selector, Mapping):
            text = f"The selector is not an object: {describe_selector(selector)}."
            self.add(key, label, selector, is_default, text, DANGER)
            return
        if namespaces:
            subject = describe_selector(selector, noun="namespaces")
            text = f"Runs for objects in {subject}."
            if not _is_empty_selector(selector):
                text += (
                    " Cluster-scoped objects (other than Namespaces) are never "
                    "skipped by this selector."
                )
            tone = INFO if _is_empty_selector(selector) else OK
        else:
            subject = describe_selector(selector, noun="objects")
            text = f"Runs for {subject}."
            tone = INFO if _is_empty_selector(selector) else OK
            if _has_opt_out(selector):
                text += (
                    " Anyone who can set labels on an object can use this to "
                    "skip the webhook; object selectors are meant for opt-in."
                )
                tone = WARN
            elif not _is_empty_selector(selector):
                text += (
                    " Old and new objects are both checked; CONNECT requests and "
                    "objects without metadata never match."
                )
        if is_default:
            text += " The empty selector (everything) is the default."
        self.add(key, label, dict(selector), is_default, text, tone)

    def side_effects(self) -> None:
        value = self.webhook.get("sideEffects")
        texts = {
            "None": ("No side effects: safe to call for dry-run requests.", OK),
            "NoneOnDryRun": (
                "Has side effects, but suppresses them when the request is a dry run.",
                OK,
            ),
            "Some": (
                "Has side effects: dry-run requests that match are rejected. v1 "
                "only keeps this value on objects created through v1beta1.",
                WARN,
            ),
            "Unknown": (
                "Side effects unknown: dry-run requests that match are rejected. "
                "v1 only keeps this value on objects created through v1beta1.",
                WARN,
            ),
        }
        if value is None:
            text, tone = "Not set: sideEffects is required in v1 (no default).", DANGER
        else:
            text, tone = texts.get(
                value if isinstance(value, str) else "",
                (f"{value!r} is not a sideEffects value.", DANGER),
            )
        self.add("sideEffects", "Side effects", value, False, text, tone)

    def timeout(self) -> None:
        value = self.webhook.get("timeoutSeconds")
        is_default = self.defaulted("timeoutSeconds")
        policy = self.webhook.get("failurePolicy")
        if _is_int(value) and 1 <= value <= 30:
            then = (
                "the request is rejected"
                if policy == "Fail"
                else (
                    "the request is admitted without it"
                    if policy == "Ignore"
                    else "the failure policy applies"
                )
            )
            text = f"Waits up to {value} s for an answer; after that {then}."
            tone = OK
            if policy == "Fail" and value >= 15:
                text += " A long timeout on a fail-closed webhook stalls writes."
                tone = WARN
        else:
            text = f"{value!r} is not a valid timeout (1 to 30 seconds)."
            tone = DANGER
        if is_default:
            text += " 10 s is the default."
        self.add("timeoutSeconds", "Timeout", value, is_default, text, tone)

    def review_versions(self) -> None:
        value = self.webhook.get("admissionReviewVersions")
        label = "AdmissionReview versions"
        if not isinstance(value, list) or not value:
            text = "Not set: admissionReviewVersions is required in v1 (no default)."
            self.add("admissionReviewVersions", label, value, False, text, DANGER)
            return
        accepted = [v for v in value if v in _ACCEPTED_REVIEW_VERSIONS]
        if not accepted:
            text = (
                f"None of {_join_words([str(v) for v in value])} is an "
                "AdmissionReview version the apiserver speaks (v1, v1beta1): "
                "every call fails and the failure policy applies."
            )
            tone = DANGER
        else:
            text = (
                f"Requests are sent as AdmissionReview {accepted[0]} (the first "
                "version in this list the apiserver supports)."
            )
            tone = OK if accepted[0] == "v1" else INFO
        self.add("admissionReviewVersions", label, value, False, text, tone)

    def match_conditions(self) -> None:
        value = self.webhook.get("matchConditions")
        label = "Match conditions"
        if value is None or value == []:
            text = (
                "None: every request that passes the rules and selectors is sent "
                "to the webhook."
            )
            self.add("matchConditions", label, value, False, text, INFO)
            return
        if not isinstance(value, list):
            text = "matchConditions is not a list and cannot be evaluated."
            self.add("matchConditions", label, value, False, text, DANGER)
            return
        text = (
            f"{len(value)} CEL condition(s), checked after rules and selectors: "
            "if any is false the webhook is skipped; if one errors (and none is "
            "false) the failure policy decides."
        )
        self.add("matchConditions", label, value, False, text, INFO)
        for index, condition in enumerate(value):
            path = f"matchConditions[{index}]"
            if not isinstance(condition, Mapping):
                text = "This condition is not an object and cannot be evaluated."
                self.add(path, f"Condition {index + 1}", condition, False, text, DANGER)
                continue
            name = condition.get("name")
            expression = condition.get("expression")
            text = f"Only called when {expression!s} is true."
            self.add(
                path,
                f"Condition {name}",
                expression,
                False,
                text,
                INFO if expression else DANGER,
            )

    def reinvocation_policy(self) -> None:
        value = self.webhook.get("reinvocationPolicy")
        is_default = self.defaulted("reinvocationPolicy")
        if value == "Never":
            text = "Called at most once per request."
            tone = OK
        elif value == "IfNeeded":
            text = (
                "Called again if a later admission plugin changes the object "
                "after this webhook ran; the webhook must be idempotent."
            )
            tone = INFO
        else:
            text = f"{value!r} is not a reinvocation policy (Never or IfNeeded)."
            tone = DANGER
        if is_default:
            text += " Never is the default."
        self.add("reinvocationPolicy", "Reinvocation", value, is_default, text, tone)


# --- public helpers -------------------------------------------------------------


def describe_rule(rule: Mapping[str, Any]) -> str:
    """A rule in words: "CREATE and UPDATE of pods (core/v1), any scope (...)"."""
    operations = _strings(rule.get("operations"))
    groups = _strings(rule.get("apiGroups"))
    versions = _strings(rule.get("apiVersions"))
    resources = _strings(rule.get("resources"))
    if "*" in operations:
        ops = "any operation"
    elif operations:
        ops = _join_words(operations)
    else:
        ops = "no operation"
    what = _join_words([_describe_resource(r) for r in resources]) or "no resource"
    return f"{ops} of {what} ({_describe_group_versions(groups, versions)}), " + (
        _describe_scope(rule.get("scope"))
    )


def describe_selector(selector: Any, *, noun: str = "objects") -> str:
    """A label selector in words: "namespaces without label control-plane"."""
    if selector is None:
        return f"no {noun} (a null selector matches nothing)"
    if not isinstance(selector, Mapping):
        return f"no {noun} (the selector cannot be read)"
    parts: list[str] = []
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, Mapping):
        parts.extend(f"with label {k}={_value(v)}" for k, v in match_labels.items())
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        parts.extend(_describe_requirement(e) for e in expressions)
    if not parts:
        return f"all {noun}"
    return f"{noun} " + " and ".join(parts)


# --- wording helpers --------------------------------------------------------------


def _describe_requirement(requirement: Any) -> str:
    if not isinstance(requirement, Mapping):
        return "an unreadable requirement"
    key = requirement.get("key")
    operator = requirement.get("operator")
    values = [_value(v) for v in _strings(requirement.get("values"))]
    if operator == "In":
        if len(values) == 1:
            return f"with label {key}={values[0]}"
        return f"with label {key} in ({', '.join(values)})"
    if operator == "NotIn":
        if len(values) == 1:
            return f"where label {key} is not {values[0]} (or is absent)"
        return f"where label {key} is none of ({', '.join(values)}) (or is absent)"
    if operator == "Exists":
        return f"with label {key} (any value)"
    if operator == "DoesNotExist":
        return f"without label {key}"
    return f"with an unsupported test {operator!r} on label {key}"


def _describe_resource(entry: str) -> str:
    resource, _, subresource = entry.partition("/")
    if "/" not in entry:
        return "all resources (not their subresources)" if entry == "*" else entry
    if resource == "*" and subresource == "*":
        return "all resources and all their subresources"
    if subresource == "*":
        return f"{resource} and all their subresources"
    if resource == "*":
        return f"the {subresource} subresource of any resource"
    return entry


def _describe_group_versions(groups: list[str], versions: list[str]) -> str:
    named_groups = ["core" if g == "" else g for g in groups]
    if len(groups) == 1 and len(versions) == 1 and "*" not in groups + versions:
        return f"{named_groups[0]}/{versions[0]}"
    if "*" in groups:
        group_text = "any group"
    else:
        noun = "group" if len(groups) == 1 else "groups"
        group_text = f"{noun} {_join_words(named_groups)}" if groups else "no group"
    if "*" in versions:
        version_text = "any version"
    else:
        noun = "version" if len(versions) == 1 else "versions"
        version_text = f"{noun} {_join_words(versions)}" if versions else "no version"
    return f"{group_text}, {version_text}"


def _describe_scope(scope: Any) -> str:
    if scope is None or scope == "*":
        return "any scope (namespace-scoped or cluster-scoped)"
    if scope == "Namespaced":
        return "namespace-scoped resources only"
    if scope == "Cluster":
        return (
            "cluster-scoped resources only (Namespace objects count as cluster-scoped)"
        )
    return f"unsupported scope {scope!r}"


def _is_broad(rule: Mapping[str, Any]) -> bool:
    resources = _strings(rule.get("resources"))
    return (
        "*" in _strings(rule.get("operations"))
        and "*" in _strings(rule.get("apiGroups"))
        and any(r in ("*", "*/*") for r in resources)
    )


def _is_empty_selector(selector: Mapping[str, Any]) -> bool:
    return not selector.get("matchLabels") and not selector.get("matchExpressions")


def _has_opt_out(selector: Mapping[str, Any]) -> bool:
    expressions = selector.get("matchExpressions")
    if not isinstance(expressions, list):
        return False
    return any(
        isinstance(e, Mapping) and e.get("operator") in ("NotIn", "DoesNotExist")
        for e in expressions
    )


def _strings(value: Any) -> list[str]:
    """A list of strings from a value that should be one (tolerates odd input)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        value = [value]
    return ["" if item is None else str(item) for item in value]


def _value(value: Any) -> str:
    text = "" if value is None else str(value)
    return text if text else '""'


def _join_words(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
