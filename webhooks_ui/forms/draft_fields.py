"""The per-field form of a draft: every field of both kinds, as Django fields.

The form converts and renders, nothing more. Posted values become
``form_model``'s plain form data (``form_data_from_post``); form data is
shown as Django fields named by ``form_model``'s flat scheme (``w-0-name``,
``w-0-r-1-operations``...), with the domain validator's errors placed under
the field each apiserver path belongs to. Which values are allowed is decided
by ``validation.validate`` on the object the form makes, never here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django import forms
from django.forms import BoundField
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from webhooks_ui.domain import form_model
from webhooks_ui.domain.certificates import CaBundleInfo, parse_pem_or_base64
from webhooks_ui.domain.kinds import MUTATING
from webhooks_ui.domain.validation import (
    FAILURE_POLICIES,
    MATCH_POLICIES,
    NO_SIDE_EFFECT_CLASSES,
    REINVOCATION_POLICIES,
    SCOPES,
)

# The order a person reads them in (validation.OPERATIONS is Go's sorted order).
OPERATION_CHOICES = ("CREATE", "UPDATE", "DELETE", "CONNECT", "*")
TEXT = "form-control form-control-sm"
SELECT = "form-select form-select-sm"


def _default(value: str) -> str:
    return f"{value} (default)"


def form_data_from_post(data: QueryDict) -> form_model.FormData:
    """What the browser posted, as form data (missing fields read as empty)."""
    return form_model.unflatten(
        lambda name: data.get(name, ""), data.getlist, list(data.keys())
    )


@dataclass
class FieldView:
    """One field: the Django bound field and the errors placed on it."""

    key: str
    bound: BoundField
    errors: list[str]


@dataclass
class RowView:
    """One row of a repeatable table (a rule, a label, a match condition...)."""

    key: str
    position: int
    fields: dict[str, FieldView]
    errors: list[str]
    last: bool = False


@dataclass
class RowsView:
    """A repeatable table: its rows, and the errors about the list as a whole."""

    key: str
    rows: list[RowView]
    errors: list[str]


@dataclass
class SelectorView:
    key: str
    title: str
    match_labels: RowsView
    match_expressions: RowsView
    errors: list[str]


@dataclass
class WebhookView:
    """One webhook section."""

    key: str
    position: int
    last: bool
    fields: dict[str, FieldView]
    rules: RowsView
    selectors: list[SelectorView]
    conditions: RowsView
    errors: list[str]
    ca_bundle: CaBundleInfo | None = None
    is_new: bool = False


@dataclass
class SummaryItem:
    """A problem in the summary: where it is in the form (if anywhere)."""

    field: str
    message: str
    key: str | None


class DraftFieldsForm(forms.Form):
    """Every field of one webhook configuration, from plain form data.

    Always built unbound from form data (a fresh render of the saved object):
    what a person typed is in the object already, converted or as typed.
    """

    def __init__(
        self,
        form_data: form_model.FormData,
        *,
        kind: str,
        errors: Iterable[Mapping[str, Any]] = (),
        now: datetime,
        name_editable: bool = True,
        focus: str = "",
        has_comments: bool = False,
    ) -> None:
        super().__init__(initial=form_model.flatten(form_data), auto_id="f-%s")
        self.kind = kind
        self.focus = focus
        self.has_comments = has_comments
        self.is_mutating = kind == MUTATING
        self.now = now
        self.defaults = form_model.placeholders(kind)
        self.error_rows = list(errors)
        self.placed: dict[str, list[str]] = defaultdict(list)
        for row in self.error_rows:
            key = form_model.field_key_for_path(str(row.get("field") or ""))
            if key:
                self.placed[key].append(str(row.get("message") or ""))
        # Every error container of the page, for out-of-band swaps.
        self.slots: list[str] = []
        self.meta_name = self._text("name", _("Name"), readonly=not name_editable)
        self.labels = self._pairs("labels", form_data["labels"], "Label")
        self.annotations = self._pairs(
            "annotations", form_data["annotations"], "Annotation"
        )
        hooks = form_data["webhooks"]
        self.webhooks = [
            self._webhook(position, hook, last=position == len(hooks) - 1)
            for position, hook in enumerate(hooks)
        ]
        shown = set(self.slots)
        self.summary = []
        for row in self.error_rows:
            key = form_model.field_key_for_path(str(row.get("field") or ""))
            self.summary.append(
                SummaryItem(
                    str(row.get("field") or ""),
                    str(row.get("message") or ""),
                    key if key in shown else None,
                )
            )

    # --- the error containers -------------------------------------------------

    def slot_errors(self) -> list[tuple[str, list[str]]]:
        """(key, messages) for every error container, to refresh them all."""
        return [(key, self.placed.get(key, [])) for key in self.slots]

    def _slot(self, key: str) -> list[str]:
        self.slots.append(key)
        return self.placed.get(key, [])

    # --- fields ---------------------------------------------------------------

    def _add(self, key: str, django_field: forms.Field) -> FieldView:
        if key == self.focus:
            django_field.widget.attrs["autofocus"] = True
        self.fields[key] = django_field
        return FieldView(key, self[key], self._slot(key))

    def _attrs(self, key: str, css: str = TEXT, **extra: Any) -> dict[str, Any]:
        attrs = {"class": css, "aria-describedby": f"fe-{key}"}
        attrs.update({k.replace("_", "-"): v for k, v in extra.items() if v})
        return attrs

    def _text(
        self,
        key: str,
        label: Any,
        *,
        placeholder: str = "",
        readonly: bool = False,
        mono: bool = False,
        aria_label: str = "",
    ) -> FieldView:
        css = f"{TEXT} mono" if mono else TEXT
        attrs = self._attrs(
            key,
            css,
            placeholder=placeholder,
            autocomplete="off",
            spellcheck="false",
            aria_label=aria_label,
        )
        if readonly:
            attrs["readonly"] = True
        return self._add(
            key,
            forms.CharField(
                label=label,
                required=False,
                strip=False,
                widget=forms.TextInput(attrs=attrs),
            ),
        )

    def _area(self, key: str, label: Any, *, rows: int, placeholder: str = ""):
        attrs = self._attrs(
            key, f"{TEXT} mono", rows=rows, spellcheck="false", placeholder=placeholder
        )
        return self._add(
            key,
            forms.CharField(
                label=label,
                required=False,
                strip=False,
                widget=forms.Textarea(attrs=attrs),
            ),
        )

    def _select(
        self, key: str, label: Any, allowed: Iterable[str], *, default: str = ""
    ) -> FieldView:
        """Exactly the allowed values, an empty choice meaning "the default",
        and the current value too when it is not allowed (so it is not lost)."""
        empty = f"(default: {default})" if default else "(not set)"
        choices = [("", empty)] + [(value, value) for value in allowed]
        current = self.initial.get(key, "")
        if current and current not in dict(choices):
            choices.append((current, f"{current} (not supported)"))
        return self._add(
            key,
            forms.ChoiceField(
                label=label,
                required=False,
                choices=choices,
                widget=forms.Select(attrs=self._attrs(key, SELECT)),
            ),
        )

    def _hidden(self, key: str) -> FieldView:
        self.fields[key] = forms.CharField(required=False, widget=forms.HiddenInput)
        return FieldView(key, self[key], [])

    # --- groups ----------------------------------------------------------------

    def _pairs(self, list_key: str, rows: list[dict[str, str]], noun: str) -> RowsView:
        views = []
        for position, _row in enumerate(rows):
            key = f"{list_key}-{position}"
            views.append(
                RowView(
                    key,
                    position,
                    {
                        "key": self._text(
                            f"{key}-key",
                            _("Key"),
                            mono=True,
                            aria_label=f"{noun} {position + 1}: key",
                        ),
                        "value": self._text(
                            f"{key}-value",
                            _("Value"),
                            mono=True,
                            aria_label=f"{noun} {position + 1}: value",
                        ),
                    },
                    [],
                )
            )
        return RowsView(list_key, views, self._slot(list_key))

    def _webhook(self, position: int, hook: form_model.FormData, *, last: bool):
        key = f"w-{position}"
        errors = self._slot(key)
        fields = {
            "index": self._hidden(f"{key}-index"),
            "name": self._text(
                f"{key}-name",
                _("Name"),
                placeholder="e.g. check.example.com",
                mono=True,
            ),
            "target": self._add(
                f"{key}-target",
                forms.ChoiceField(
                    label=_("Calls"),
                    required=False,
                    choices=[
                        (form_model.SERVICE, _("a service in the cluster")),
                        (form_model.URL, _("a URL")),
                    ],
                    widget=forms.RadioSelect(
                        attrs={"class": "form-check-input target-choice"}
                    ),
                ),
            ),
            "service_namespace": self._text(
                f"{key}-service_namespace", _("Namespace"), mono=True
            ),
            "service_name": self._text(f"{key}-service_name", _("Service"), mono=True),
            "service_path": self._text(
                f"{key}-service_path",
                _("Path"),
                placeholder="e.g. /validate",
                mono=True,
            ),
            "service_port": self._text(
                f"{key}-service_port",
                _("Port"),
                placeholder=_default(self.defaults["service_port"]),
            ),
            "url": self._text(
                f"{key}-url",
                _("URL"),
                placeholder="e.g. https://host:port/path",
                mono=True,
            ),
            "ca_bundle": self._area(
                f"{key}-ca_bundle",
                _("caBundle (PEM or base64)"),
                rows=2,
                placeholder="Paste PEM (-----BEGIN CERTIFICATE-----) or base64",
            ),
        }
        rules = self._rules(f"{key}-r", hook["rules"])
        fields["failure_policy"] = self._select(
            f"{key}-failure_policy",
            _("failurePolicy"),
            FAILURE_POLICIES,
            default=self.defaults["failure_policy"],
        )
        fields["match_policy"] = self._select(
            f"{key}-match_policy",
            _("matchPolicy"),
            MATCH_POLICIES,
            default=self.defaults["match_policy"],
        )
        fields["side_effects"] = self._select(
            f"{key}-side_effects", _("sideEffects"), NO_SIDE_EFFECT_CLASSES
        )
        fields["timeout_seconds"] = self._text(
            f"{key}-timeout_seconds",
            _("timeoutSeconds"),
            placeholder=_default(self.defaults["timeout_seconds"]),
        )
        fields["admission_review_versions"] = self._text(
            f"{key}-admission_review_versions",
            _("admissionReviewVersions"),
            placeholder="e.g. v1",
            mono=True,
        )
        if self.is_mutating:
            fields["reinvocation_policy"] = self._select(
                f"{key}-reinvocation_policy",
                _("reinvocationPolicy"),
                REINVOCATION_POLICIES,
                default=self.defaults["reinvocation_policy"],
            )
        selectors = [
            self._selector(f"{key}-ns", _("namespaceSelector"), hook["ns"]),
            self._selector(f"{key}-os", _("objectSelector"), hook["os"]),
        ]
        conditions = self._conditions(f"{key}-mc", hook["match_conditions"])
        bundle = hook["ca_bundle"].strip()
        return WebhookView(
            key=key,
            position=position,
            last=last,
            fields=fields,
            rules=rules,
            selectors=selectors,
            conditions=conditions,
            errors=errors,
            ca_bundle=parse_pem_or_base64(bundle, now=self.now) if bundle else None,
        )

    def _rules(self, list_key: str, rows: list[form_model.FormData]) -> RowsView:
        errors = self._slot(list_key)
        views = []
        for position, row in enumerate(rows):
            key = f"{list_key}-{position}"
            row_errors = self._slot(key)
            operations = list(OPERATION_CHOICES)
            operations += [op for op in row["operations"] if op not in operations]
            fields = {
                "index": self._hidden(f"{key}-index"),
                "operations": self._add(
                    f"{key}-operations",
                    forms.MultipleChoiceField(
                        label=_("operations"),
                        required=False,
                        choices=[(op, op) for op in operations],
                        widget=forms.CheckboxSelectMultiple(
                            attrs={"class": "form-check-input"}
                        ),
                    ),
                ),
                "api_groups": self._text(
                    f"{key}-api_groups",
                    _("apiGroups"),
                    placeholder='e.g. "", apps',
                    mono=True,
                ),
                "api_versions": self._text(
                    f"{key}-api_versions",
                    _("apiVersions"),
                    placeholder="e.g. v1",
                    mono=True,
                ),
                "resources": self._text(
                    f"{key}-resources",
                    _("resources"),
                    placeholder="e.g. pods, deployments/scale",
                    mono=True,
                ),
                "scope": self._select(
                    f"{key}-scope",
                    _("scope"),
                    SCOPES,
                    default=self.defaults["scope"],
                ),
            }
            views.append(
                RowView(key, position, fields, row_errors, position == len(rows) - 1)
            )
        return RowsView(list_key, views, errors)

    def _selector(
        self, key: str, title: Any, selector: form_model.FormData
    ) -> SelectorView:
        errors = self._slot(key)
        labels = self._pairs(f"{key}-ml", selector["ml"], f"{title} matchLabels")
        list_key = f"{key}-me"
        expressions_errors = self._slot(list_key)
        views = []
        for position, _row in enumerate(selector["me"]):
            row_key = f"{list_key}-{position}"
            row_errors = self._slot(row_key)
            fields = {
                "index": self._hidden(f"{row_key}-index"),
                "key": self._text(f"{row_key}-key", _("Key"), mono=True),
                "operator": self._select(
                    f"{row_key}-operator",
                    _("Operator"),
                    form_model.SELECTOR_OPERATORS,
                ),
                "values": self._text(
                    f"{row_key}-values",
                    _("Values"),
                    placeholder="e.g. a, b",
                    mono=True,
                ),
            }
            views.append(RowView(row_key, position, fields, row_errors))
        return SelectorView(
            key,
            str(title),
            labels,
            RowsView(list_key, views, expressions_errors),
            errors,
        )

    def _conditions(self, list_key: str, rows: list[form_model.FormData]) -> RowsView:
        errors = self._slot(list_key)
        views = []
        for position, _row in enumerate(rows):
            key = f"{list_key}-{position}"
            row_errors = self._slot(key)
            fields = {
                "index": self._hidden(f"{key}-index"),
                "name": self._text(f"{key}-name", _("Name"), mono=True),
                "expression": self._area(
                    f"{key}-expression",
                    _("CEL expression"),
                    rows=2,
                    placeholder="e.g. request.namespace != 'kube-system'",
                ),
            }
            views.append(RowView(key, position, fields, row_errors))
        return RowsView(list_key, views, errors)
