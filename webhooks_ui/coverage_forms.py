"""The coverage explorer's question: cluster, resource, operation, namespace, object.

Every input comes from the query string, so a question is a shareable URL.
The form resolves the resource and namespace against the chosen cluster's
discovery and namespaces (``ClusterIndex``) and parses labels, the sample
object and the user; it makes no decision about matching itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from webhooks_ui.domain.discovery import OPERATION_ORDER
from webhooks_ui.domain.labels import is_qualified_name, is_valid_label_value
from webhooks_ui.domain.manifest import ManifestError, load_documents
from webhooks_ui.models import Cluster
from webhooks_ui.review.coverage import ClusterIndex

# A pasted object larger than this is not a sample, it is a mistake.
MAX_SAMPLE_BYTES = 512 * 1024


class CoverageExplorerForm(forms.Form):
    """Who intercepts this request? Inputs of the coverage explorer."""

    cluster = forms.CharField(label=_("Cluster"))
    resource = forms.CharField(
        label=_("Resource"),
        required=False,
        help_text=_("group/version/resource[/subresource], e.g. v1/pods"),
    )
    operation = forms.ChoiceField(
        label=_("Operation"),
        choices=[(op, op) for op in OPERATION_ORDER],
        initial="CREATE",
    )
    namespace = forms.CharField(
        label=_("Namespace"),
        required=False,
        help_text=_("Blank for a cluster-scoped resource."),
    )
    labels = forms.CharField(
        label=_("Object labels"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One key=value a line; added to the sample's labels."),
    )
    sample = forms.CharField(
        label=_("Sample object (YAML or JSON)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_("Its labels feed objectSelectors; matchConditions run on it."),
    )
    username = forms.CharField(label=_("Username"), required=False)
    groups = forms.CharField(
        label=_("Groups"),
        required=False,
        help_text=_("Comma-separated, e.g. system:masters"),
    )

    def __init__(
        self,
        *args: Any,
        clusters: Sequence[Cluster],
        index_for: Callable[[Cluster], ClusterIndex],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.clusters = {cluster.name: cluster for cluster in clusters}
        self.index_for = index_for
        self.index: ClusterIndex | None = None
        self.fields["cluster"].widget = forms.Select(
            choices=[(name, name) for name in self.clusters]
        )
        for name, field in self.fields.items():
            css = "form-select" if name in ("cluster", "operation") else "form-control"
            field.widget.attrs["class"] = f"{css} {css}-sm"
        self.fields["resource"].widget.attrs.update(
            {"list": "resource-options", "autocomplete": "off", "spellcheck": "false"}
        )
        self.fields["namespace"].widget.attrs.update(
            {"list": "namespace-options", "autocomplete": "off"}
        )
        self.fields["sample"].widget.attrs["class"] += " mono"
        self.fields["labels"].widget.attrs["class"] += " mono"

    def clean_cluster(self) -> Cluster:
        name = self.cleaned_data["cluster"]
        cluster = self.clusters.get(name)
        if cluster is None:
            # Never confirm that a cluster the user may not see exists.
            raise forms.ValidationError(
                _("There is no cluster named “%(name)s” that you can see."),
                code="unknown_cluster",
                params={"name": name},
            )
        self.index = self.index_for(cluster)
        return cluster

    def clean_labels(self) -> dict[str, str]:
        labels: dict[str, str] = {}
        problems = []
        for number, line in enumerate(self.cleaned_data["labels"].splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            key, sep, value = line.partition("=")
            key, value = key.strip(), value.strip()
            errors = ([] if sep else ["must be key=value"]) or [
                *is_qualified_name(key),
                *is_valid_label_value(value),
            ]
            if errors:
                problems.append(f"line {number} ({line}): {'; '.join(errors)}")
            else:
                labels[key] = value
        if problems:
            raise forms.ValidationError(problems, code="invalid_labels")
        return labels

    def clean_sample(self) -> dict[str, Any] | None:
        text = self.cleaned_data["sample"]
        if not text.strip():
            return None
        try:
            objects = load_documents(text, source="sample", max_bytes=MAX_SAMPLE_BYTES)
        except ManifestError as error:
            raise forms.ValidationError(
                _("The sample object is not valid YAML or JSON: %(error)s"),
                code="bad_sample",
                params={"error": str(error)},
            ) from None
        if len(objects) != 1:
            raise forms.ValidationError(
                _("Paste exactly one object (found %(count)d)."),
                code="sample_count",
                params={"count": len(objects)},
            )
        return objects[0]

    def clean_groups(self) -> list[str]:
        text = self.cleaned_data["groups"].replace("\n", ",")
        return [group.strip() for group in text.split(",") if group.strip()]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.index is None or self.errors:
            return data
        text = data.get("resource", "")
        if not text:
            return data  # an unfinished question, not a wrong one
        row = self.index.resource(text)
        if row is None:
            self.add_error(
                "resource",
                forms.ValidationError(
                    _(
                        "Cluster %(cluster)s serves no resource “%(resource)s”. "
                        "Pick one from the list (group/version/resource)."
                    ),
                    code="unknown_resource",
                    params={"cluster": data["cluster"].name, "resource": text},
                ),
            )
            return data
        data["api_resource"] = row
        sample = data.get("sample")
        metadata = sample.get("metadata") if sample else None
        metadata = metadata if isinstance(metadata, dict) else {}
        if not data.get("namespace") and isinstance(metadata.get("namespace"), str):
            data["namespace"] = metadata["namespace"]
        if row.namespaced and not data.get("namespace"):
            self.add_error(
                "namespace",
                forms.ValidationError(
                    _("%(resource)s is namespaced: give a namespace."),
                    code="namespace_required",
                    params={"resource": row.name},
                ),
            )
        sample_kind = sample.get("kind") if sample else None
        if sample_kind and not row.subresource and sample_kind != row.kind:
            self.add_error(
                "sample",
                forms.ValidationError(
                    _("The sample is a %(sample)s but %(resource)s hold %(kind)s."),
                    code="sample_kind",
                    params={
                        "sample": sample_kind,
                        "resource": row.name,
                        "kind": row.kind,
                    },
                ),
            )
        return data
