"""How API responses look. Output only shapes what services and selectors
return; input serializers only check types. No rules live here."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Q
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from webhooks_ui.converters import KIND_BY_SLUG, SLUG_BY_KIND
from webhooks_ui.domain.diff import DiffLine
from webhooks_ui.models import (
    ApiToken,
    AuditEvent,
    ChangeRequest,
    ChangeReview,
    Cluster,
    ClusterMembership,
    ConfigurationRevision,
    RiskFinding,
    SyncRun,
    WebhookConfiguration,
)
from webhooks_ui.permissions import visible_clusters
from webhooks_ui.review.coverage import resource_label
from webhooks_ui.services.changes import (
    active_approvals,
    apply_blockers,
    review_blockers,
)
from webhooks_ui.services.drafts import text_hash

_PREFIX = {"added": "+", "removed": "-", "context": " ", "hunk": ""}


def unified_text(lines: list[DiffLine]) -> str:
    """The lines as a patch reader expects them (``+``/``-``/space prefixes)."""
    return "\n".join(_PREFIX.get(line.kind, "") + line.text for line in lines)


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.JSONField(allow_null=True)


class ErrorSerializer(serializers.Serializer):
    """Every 4xx answer: ``{"error": {"code", "message", "details"}}``."""

    error = ErrorDetailSerializer()


# --- clusters -------------------------------------------------------------------


class ClusterSerializer(serializers.ModelSerializer):
    """A cluster as the overview shows it; never any credential field."""

    configuration_count = serializers.IntegerField(read_only=True)
    webhook_count = serializers.IntegerField(read_only=True, allow_null=True)
    fail_closed_count = serializers.IntegerField(read_only=True, allow_null=True)
    last_sync_status = serializers.CharField(read_only=True, allow_null=True)
    last_sync_started_at = serializers.DateTimeField(read_only=True, allow_null=True)
    last_sync_error = serializers.CharField(read_only=True, allow_null=True)
    server_version = serializers.CharField(read_only=True, allow_null=True)
    last_success_at = serializers.DateTimeField(read_only=True, allow_null=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Cluster
        fields = [
            "name",
            "display_name",
            "environment",
            "api_server_url",
            "auth_method",
            "is_sandbox",
            "configuration_count",
            "webhook_count",
            "fail_closed_count",
            "last_sync_status",
            "last_sync_started_at",
            "last_sync_error",
            "server_version",
            "last_success_at",
            "url",
        ]

    def get_url(self, cluster: Cluster) -> str:
        return reverse("api:cluster-detail", kwargs={"cluster": cluster.name})


class SyncRunSerializer(serializers.ModelSerializer):
    duration_seconds = serializers.SerializerMethodField()

    class Meta:
        model = SyncRun
        fields = [
            "id",
            "status",
            "started_at",
            "finished_at",
            "duration_seconds",
            "created_count",
            "updated_count",
            "deleted_count",
            "unchanged_count",
            "error",
            "triggered_by",
            "server_version",
        ]

    def get_duration_seconds(self, run: SyncRun) -> float | None:
        return run.duration.total_seconds() if run.duration is not None else None


class SyncStatusSerializer(serializers.Serializer):
    cluster = serializers.CharField(source="cluster.name")
    pending = serializers.BooleanField()
    requested_at = serializers.DateTimeField(allow_null=True)
    run = SyncRunSerializer(allow_null=True)


class SyncAcceptedSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    requested_at = serializers.DateTimeField()
    status_url = serializers.CharField()


class ConnectionReportSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    server_version = serializers.CharField()
    can_list = serializers.DictField(child=serializers.BooleanField())
    error = serializers.CharField()
    summary = serializers.CharField()


# --- cluster administration -----------------------------------------------------


class ClusterPolicySerializer(serializers.Serializer):
    """A cluster's approval policy; as input, its values are checked by
    ``cluster_policy_update`` (the settings page's rules and words)."""

    approvals_required = serializers.IntegerField(
        help_text="Approvals from people other than the author before apply (1 to 10)."
    )
    author_may_apply = serializers.BooleanField(
        help_text="Whether an operator may apply a change they wrote themselves."
    )
    change_window = serializers.CharField(
        max_length=200,
        allow_blank=True,
        help_text="When changes may be applied, e.g. 'Mon-Fri 09:00-17:00' (UTC) or "
        "'Mon-Fri 09:00-17:00 Europe/Berlin' (an IANA time zone). Empty: any time.",
    )


class MembershipSerializer(serializers.ModelSerializer):
    """A role on the cluster, held by a user or by a group (the other is null)."""

    user = serializers.CharField(source="user.username", allow_null=True)
    group = serializers.CharField(source="group.name", allow_null=True)

    class Meta:
        model = ClusterMembership
        fields = ["id", "role", "user", "group"]


class MembershipGrantSerializer(serializers.Serializer):
    """Who gets which role: name exactly one of ``user`` and ``group``."""

    role = serializers.ChoiceField(ClusterMembership.Role.choices)
    user = serializers.CharField(
        max_length=150, required=False, allow_null=True, help_text="A username."
    )
    group = serializers.CharField(
        max_length=150, required=False, allow_null=True, help_text="A group name."
    )


# --- configurations ---------------------------------------------------------------


class ConfigurationSerializer(serializers.ModelSerializer):
    cluster = serializers.CharField(source="cluster.name")
    kind_slug = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = WebhookConfiguration
        fields = [
            "cluster",
            "kind",
            "kind_slug",
            "name",
            "uid",
            "resource_version",
            "generation",
            "webhook_count",
            "fail_closed_count",
            "revision_count",
            "comparison_hash",
            "first_seen",
            "last_changed",
            "deleted_at",
            "url",
        ]

    def get_kind_slug(self, configuration: WebhookConfiguration) -> str:
        return SLUG_BY_KIND[configuration.kind]

    def get_url(self, configuration: WebhookConfiguration) -> str:
        return reverse("api:configuration-detail", kwargs=_config_kwargs(configuration))


class ConfigurationDetailSerializer(ConfigurationSerializer):
    raw = serializers.JSONField(help_text="The object as the API server served it.")

    class Meta(ConfigurationSerializer.Meta):
        fields = [*ConfigurationSerializer.Meta.fields, "raw"]


def _config_kwargs(configuration: WebhookConfiguration) -> dict[str, str]:
    return {
        "cluster": configuration.cluster.name,
        "kind": configuration.kind,
        "name": configuration.name,
    }


class ChangeSerializer(serializers.Serializer):
    path = serializers.CharField()
    op = serializers.ChoiceField(["added", "removed", "changed", "moved"])
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)
    summary = serializers.CharField()
    webhook = serializers.CharField(allow_null=True)


class DiffLineSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="hunk, context, added or removed")
    text = serializers.CharField(allow_blank=True)
    old_lineno = serializers.IntegerField(allow_null=True)
    new_lineno = serializers.IntegerField(allow_null=True)


class RevisionSerializer(serializers.Serializer):
    """A revision with what changed against the one before it."""

    number = serializers.IntegerField(source="revision.number")
    change = serializers.ChoiceField(
        ConfigurationRevision.Change.choices, source="revision.change"
    )
    resource_version = serializers.CharField(source="revision.resource_version")
    content_hash = serializers.CharField(source="revision.content_hash")
    observed_at = serializers.DateTimeField(source="revision.observed_at")
    sync_run = serializers.IntegerField(source="revision.sync_run_id", allow_null=True)
    changes = ChangeSerializer(many=True)


class ObjectDiffSerializer(serializers.Serializer):
    changes = ChangeSerializer(many=True)
    unified = DiffLineSerializer(many=True)
    unified_text = serializers.SerializerMethodField()

    def get_unified_text(self, diff: Any) -> str:
        return unified_text(diff.unified)


class RevisionDiffSerializer(serializers.Serializer):
    from_revision = serializers.IntegerField(allow_null=True)
    to_revision = serializers.IntegerField(allow_null=True)
    diff = ObjectDiffSerializer(allow_null=True)


class CompareCopySerializer(serializers.Serializer):
    cluster = serializers.CharField(source="cluster.name")
    environment = serializers.CharField(source="cluster.environment")
    resource_version = serializers.CharField()
    comparison_hash = serializers.CharField()


class CompareSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    copies = CompareCopySerializer(many=True)
    left = serializers.CharField(allow_null=True)
    right = serializers.CharField(allow_null=True)
    identical = serializers.BooleanField(allow_null=True)
    diff = ObjectDiffSerializer(allow_null=True)


# --- findings -------------------------------------------------------------------


class FindingSerializer(serializers.ModelSerializer):
    cluster = serializers.CharField(source="cluster.name", allow_null=True)
    detail = serializers.JSONField()

    class Meta:
        model = RiskFinding
        fields = [
            "id",
            "scope",
            "cluster",
            "configuration_kind",
            "configuration_name",
            "check_id",
            "severity",
            "webhook",
            "field",
            "message",
            "fix",
            "detail",
            "computed_at",
        ]


# --- validate -------------------------------------------------------------------


class ManifestWrapperSerializer(serializers.Serializer):
    manifest = serializers.CharField(
        trim_whitespace=False,
        help_text="YAML or JSON: one object, several documents, or a List.",
    )


class FieldCauseSerializer(serializers.Serializer):
    field = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()
    message = serializers.CharField()


class StatusDetailsSerializer(serializers.Serializer):
    name = serializers.CharField(allow_blank=True)
    group = serializers.CharField()
    kind = serializers.CharField()
    causes = FieldCauseSerializer(many=True)


class KubeStatusSerializer(serializers.Serializer):
    """The apiserver's ``Status`` object for a 422 (``metav1.Status``)."""

    kind = serializers.CharField()
    apiVersion = serializers.CharField()  # noqa: N815 - Kubernetes field name
    metadata = serializers.DictField()
    status = serializers.CharField()
    message = serializers.CharField()
    reason = serializers.CharField()
    details = StatusDetailsSerializer()
    code = serializers.IntegerField()


class CheckWarningSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.CharField(allow_blank=True)
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()


class DryRunSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    status = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    causes = FieldCauseSerializer(many=True)


class CheckedObjectSerializer(serializers.Serializer):
    source = serializers.CharField()
    document = serializers.IntegerField()
    item = serializers.IntegerField(allow_null=True)
    line = serializers.IntegerField(allow_null=True)
    apiVersion = serializers.CharField(allow_blank=True)  # noqa: N815
    kind = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    valid = serializers.BooleanField()
    message = serializers.CharField(allow_null=True)
    errors = FieldCauseSerializer(many=True)
    warnings = CheckWarningSerializer(many=True)
    status = KubeStatusSerializer(allow_null=True)
    dry_run = DryRunSerializer(
        allow_null=True, help_text="The apiserver's dry run (null without ?cluster=)."
    )


class SkippedObjectSerializer(serializers.Serializer):
    source = serializers.CharField()
    document = serializers.IntegerField()
    item = serializers.IntegerField(allow_null=True)
    line = serializers.IntegerField(allow_null=True)
    apiVersion = serializers.CharField(allow_blank=True)  # noqa: N815
    kind = serializers.CharField(allow_blank=True)
    name = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()


class ValidationReportSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    cluster = serializers.CharField(allow_null=True)
    results = CheckedObjectSerializer(many=True)
    skipped = SkippedObjectSerializer(many=True)
    summary = serializers.DictField(child=serializers.IntegerField())


# --- coverage -------------------------------------------------------------------


class ReasonSerializer(serializers.Serializer):
    check = serializers.CharField()
    text = serializers.CharField()


class InterceptionSerializer(serializers.Serializer):
    configuration_kind = serializers.CharField(source="entry.configuration_kind")
    configuration_name = serializers.CharField(source="entry.configuration_name")
    webhook_name = serializers.CharField(source="entry.webhook_name")
    webhook_index = serializers.IntegerField(source="entry.webhook_index")
    verdict = serializers.CharField(allow_blank=True)
    failure_policy = serializers.CharField(source="entry.failure_policy")
    timeout_seconds = serializers.IntegerField(source="entry.timeout_seconds")
    reinvocation_policy = serializers.CharField(
        source="entry.reinvocation_policy", allow_null=True
    )
    condition_decision = serializers.CharField(source="entry.condition_decision")
    match_reason = serializers.CharField(source="entry.match.reason")
    match_detail = serializers.CharField(source="entry.match.detail")
    reasons = ReasonSerializer(many=True)


class QuestionSerializer(serializers.Serializer):
    summary = serializers.CharField()
    operation = serializers.CharField()
    resource = serializers.SerializerMethodField()
    namespace = serializers.CharField(allow_blank=True)
    namespace_missing = serializers.BooleanField()
    sample_given = serializers.BooleanField()

    def get_resource(self, question: Any) -> str:
        return resource_label(question.resource)


class CoverageExplorerSerializer(serializers.Serializer):
    cluster = serializers.CharField(source="cluster_name")
    question = QuestionSerializer()
    total_worst_case_seconds = serializers.IntegerField(
        source="interception.total_worst_case_seconds"
    )
    worst_case_note = serializers.CharField(
        source="interception.worst_case_note", allow_blank=True
    )
    matched = InterceptionSerializer(many=True)
    not_matching = InterceptionSerializer(many=True)


class CoveredResourceSerializer(serializers.Serializer):
    group = serializers.CharField(allow_blank=True)
    version = serializers.CharField()
    resource = serializers.CharField()
    subresource = serializers.CharField(allow_blank=True)
    kind = serializers.CharField(allow_blank=True)
    namespaced = serializers.BooleanField()
    operations = serializers.ListField(child=serializers.CharField())


class NamespaceVerdictSerializer(serializers.Serializer):
    name = serializers.CharField()
    selected = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True)


class WebhookCoverageSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    name = serializers.CharField()
    failure_policy = serializers.CharField()
    namespace_selector = serializers.CharField()
    object_selector = serializers.CharField()
    match_conditions = serializers.ListField(child=serializers.JSONField())
    resources = CoveredResourceSerializer(source="coverage.resources", many=True)
    exempt = CoveredResourceSerializer(source="coverage.exempt", many=True)
    selected_namespaces = serializers.ListField(
        source="coverage.selected_namespaces", child=serializers.CharField()
    )
    excluded_namespaces = NamespaceVerdictSerializer(
        source="coverage.excluded_namespaces", many=True
    )
    namespace_selector_error = serializers.CharField(
        source="coverage.namespace_selector_error", allow_null=True
    )
    object_selector_error = serializers.CharField(
        source="coverage.object_selector_error", allow_null=True
    )
    notes = serializers.ListField(
        source="coverage.notes", child=serializers.CharField()
    )


class ConfigurationCoverageSerializer(serializers.Serializer):
    resource_count = serializers.IntegerField()
    namespace_count = serializers.IntegerField()
    synced = serializers.BooleanField()
    webhooks = WebhookCoverageSerializer(source="cards", many=True)


# --- tokens ---------------------------------------------------------------------


class ApiTokenSerializer(serializers.ModelSerializer):
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "prefix",
            "created_at",
            "last_used",
            "revoked_at",
            "active",
        ]
        read_only_fields = fields


class ApiTokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)


class CreatedTokenSerializer(ApiTokenSerializer):
    token = serializers.SerializerMethodField(
        help_text="The secret: shown this once, never stored."
    )

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "token"]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.STR)
    def get_token(self, token: ApiToken) -> str:
        return self.context["secret"]


# --- change requests ------------------------------------------------------------


class ChangeLinkSerializer(serializers.Serializer):
    """Another change request this one is linked to (promotion)."""

    id = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    cluster = serializers.CharField(source="cluster.name")
    state = serializers.ChoiceField(ChangeRequest.State.choices)

    def get_url(self, change: ChangeRequest) -> str:
        return reverse("api:change-detail", kwargs={"change_id": change.pk})


class ProblemSerializer(serializers.Serializer):
    """One validation or dry-run error, with the line of its field in the text."""

    field = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)

    def to_representation(self, row: Any) -> dict[str, Any]:
        row = row if isinstance(row, dict) else {}
        return {
            "field": str(row.get("field") or ""),
            "reason": str(row.get("reason") or ""),
            "message": str(row.get("message") or ""),
            "line": row.get("line") if isinstance(row.get("line"), int) else None,
            "column": row.get("column") if isinstance(row.get("column"), int) else None,
        }


class ChangeDryRunSerializer(serializers.Serializer):
    """The cluster's last dry-run verdict; ``current`` when it checked the
    content as it is now."""

    ok = serializers.BooleanField()
    message = serializers.CharField(allow_blank=True)
    errors = ProblemSerializer(many=True)
    at = serializers.CharField(allow_blank=True)
    current = serializers.BooleanField()


class ApprovalsSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Approvals that count now.")
    required = serializers.IntegerField(help_text="The cluster's policy.")


class ChangeReviewSerializer(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.username")

    class Meta:
        model = ChangeReview
        fields = [
            "id",
            "reviewer",
            "verdict",
            "body",
            "change_version",
            "created_at",
            "dismissed_at",
            "dismissed_reason",
        ]


class ChangeRequestSerializer(serializers.Serializer):
    """A change request as the list shows it."""

    id = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    state = serializers.ChoiceField(ChangeRequest.State.choices)
    action = serializers.ChoiceField(ChangeRequest.Action.choices)
    cluster = serializers.CharField(source="cluster.name")
    kind = serializers.ChoiceField(WebhookConfiguration.Kind.choices)
    kind_slug = serializers.SerializerMethodField()
    name = serializers.CharField(allow_blank=True)
    title = serializers.CharField(allow_blank=True)
    author = serializers.CharField(source="author.username")
    version = serializers.IntegerField()
    etag = serializers.CharField()
    valid = serializers.SerializerMethodField(
        help_text="Parses into one object without validation errors."
    )
    approvals = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    proposed_at = serializers.DateTimeField(allow_null=True)
    applied_at = serializers.DateTimeField(allow_null=True)

    def get_url(self, change: ChangeRequest) -> str:
        return reverse("api:change-detail", kwargs={"change_id": change.pk})

    def get_kind_slug(self, change: ChangeRequest) -> str:
        return SLUG_BY_KIND.get(change.kind, change.kind)

    def get_valid(self, change: ChangeRequest) -> bool:
        if change.action == ChangeRequest.Action.DELETE:
            return True
        return change.proposed_object is not None and not change.validation_errors

    @extend_schema_field(ApprovalsSerializer)
    def get_approvals(self, change: ChangeRequest) -> dict[str, int]:
        return {
            "count": len(active_approvals(change)),
            "required": change.cluster.approvals_required,
        }


class ChangeRequestDetailSerializer(ChangeRequestSerializer):
    """The whole request: content, errors, dry run, reviews, what blocks the
    caller, and links. ``context["user"]`` is the caller."""

    description = serializers.CharField(allow_blank=True)
    text = serializers.CharField(source="proposed_text", allow_blank=True)
    object = serializers.JSONField(
        source="proposed_object",
        allow_null=True,
        help_text="The text parsed (null when it does not parse, or a delete).",
    )
    validation_errors = ProblemSerializer(many=True)
    dry_run = serializers.SerializerMethodField()
    base_resource_version = serializers.CharField(allow_blank=True)
    base_object = serializers.JSONField(
        allow_null=True, help_text="The live object it was made from (as synced)."
    )
    live_resource_version = serializers.CharField(allow_blank=True)
    live_object = serializers.JSONField(
        allow_null=True, help_text="The live object found when it went stale."
    )
    outcome = serializers.JSONField(
        allow_null=True,
        help_text="Why the last apply failed or why it went stale: "
        "{message, causes, at}.",
    )
    applied_by = serializers.CharField(source="applied_by.username", allow_null=True)
    applied_revision = serializers.IntegerField(
        source="applied_revision.number", allow_null=True
    )
    restores_revision = serializers.IntegerField(
        source="restores_revision.number",
        allow_null=True,
        help_text="The revision this change restores.",
    )
    promoted_from = serializers.SerializerMethodField()
    promotions = serializers.SerializerMethodField()
    reviews = ChangeReviewSerializer(many=True, source="reviews.all")
    apply_blockers = serializers.SerializerMethodField(
        help_text="Why you may not apply it now (empty when you may)."
    )
    review_blockers = serializers.SerializerMethodField(
        help_text="Why you may not approve it now (empty when you may)."
    )

    @extend_schema_field(ChangeDryRunSerializer(allow_null=True))
    def get_dry_run(self, change: ChangeRequest) -> dict[str, Any] | None:
        result = change.dry_run_result
        if not isinstance(result, dict):
            return None
        data = {
            "ok": bool(result.get("ok")),
            "message": str(result.get("message") or ""),
            "errors": result.get("errors") or [],
            "at": str(result.get("at") or ""),
            "current": result.get("text_sha256") == text_hash(change.proposed_text),
        }
        return ChangeDryRunSerializer(data).data

    @extend_schema_field(ChangeLinkSerializer(allow_null=True))
    def get_promoted_from(self, change: ChangeRequest) -> dict[str, Any] | None:
        source = change.promoted_from
        return ChangeLinkSerializer(source).data if source is not None else None

    @extend_schema_field(ChangeLinkSerializer(many=True))
    def get_promotions(self, change: ChangeRequest) -> list[dict[str, Any]]:
        user = self.context["user"]
        promoted = change.promotions.filter(cluster__in=visible_clusters(user)).exclude(
            Q(state=ChangeRequest.State.DRAFT) & ~Q(author_id=user.pk)
        )
        return ChangeLinkSerializer(
            promoted.select_related("cluster").order_by("pk"), many=True
        ).data

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_apply_blockers(self, change: ChangeRequest) -> list[str]:
        return apply_blockers(change, self.context["user"])

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_review_blockers(self, change: ChangeRequest) -> list[str]:
        return review_blockers(change, self.context["user"])


KIND_INPUTS = ["mutating", "validating", *WebhookConfiguration.Kind.values]


class JsonObjectField(serializers.JSONField):
    """A JSON object that can be stored and sent back: lone surrogates (which
    JSON escapes allow) and numbers too large for a float (1e400) are refused."""

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("Expected a JSON object.")
        try:
            json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except UnicodeEncodeError:
            raise serializers.ValidationError(
                "Surrogate characters are not allowed."
            ) from None
        except ValueError:
            raise serializers.ValidationError(
                "Numbers must be finite (this one is too large)."
            ) from None
        return value


# A pattern, not an enum: enums named "kind" would collide in the components.
@extend_schema_field({"type": "string", "pattern": f"^({'|'.join(KIND_INPUTS)})$"})
class KindInputField(serializers.CharField):
    """A kind as the URLs spell it (slug) or in full; gives the full kind."""

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if value not in KIND_INPUTS:
            raise serializers.ValidationError(f"Use one of: {', '.join(KIND_INPUTS)}.")
        return KIND_BY_SLUG.get(value, value)


class ChangeCreateSerializer(serializers.Serializer):
    """Open a change request. Content: at most one of object, text, patch."""

    cluster = serializers.CharField(max_length=63)
    action = serializers.ChoiceField(ChangeRequest.Action.choices)
    kind = KindInputField(help_text="mutating or validating (or the full kind).")
    name = serializers.CharField(
        max_length=253,
        required=False,
        allow_blank=True,
        help_text="The configuration (required for update and delete).",
    )
    title = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False
    )
    object = JsonObjectField(
        required=False, help_text="The full object to create or replace with."
    )
    text = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The object as YAML or JSON text (kept verbatim).",
    )
    patch = JsonObjectField(
        required=False,
        help_text="An RFC 7396 JSON merge patch applied to the live object as "
        "last synced (update only).",
    )
    propose = serializers.BooleanField(
        default=False, help_text="Propose it for review right away."
    )


class ChangeCreatedSerializer(ChangeRequestDetailSerializer):
    propose_error = serializers.SerializerMethodField(
        help_text="Why the requested proposal did not happen (it stays a draft)."
    )

    @extend_schema_field(ErrorDetailSerializer(allow_null=True))
    def get_propose_error(self, change: ChangeRequest) -> dict[str, Any] | None:
        error = self.context.get("propose_error")
        if error is None:
            return None
        return {"code": error.code, "message": str(error), "details": None}


class ChangeUpdateSerializer(serializers.Serializer):
    """Edit a change request: details, content (text or object), or both."""

    title = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False
    )
    text = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False
    )
    object = JsonObjectField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "text" in attrs and "object" in attrs:
            raise serializers.ValidationError(
                {"object": ["Give the content once: text or object."]}
            )
        if not attrs:
            raise serializers.ValidationError(
                "Nothing to change: give title, description, text or object."
            )
        return attrs


class ReviewBodySerializer(serializers.Serializer):
    body = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, default=""
    )


class RebaseSerializer(serializers.Serializer):
    manual = serializers.BooleanField(
        default=False,
        help_text="Re-base on the live object keeping your text, to resolve by hand.",
    )


class PromoteSerializer(serializers.Serializer):
    clusters = serializers.ListField(
        child=serializers.CharField(max_length=63), min_length=1, max_length=100
    )


class ApplyOutcomeSerializer(serializers.Serializer):
    status = serializers.ChoiceField(["applied", "stale", "failed", "not_sent"])
    message = serializers.CharField()
    causes = serializers.ListField(child=serializers.JSONField())


class ApplyResultSerializer(serializers.Serializer):
    outcome = ApplyOutcomeSerializer()
    change = ChangeRequestDetailSerializer()


class PromotionSerializer(serializers.Serializer):
    cluster = serializers.CharField(source="cluster.name")
    message = serializers.CharField()
    change = ChangeRequestSerializer(allow_null=True)


class PromoteResultSerializer(serializers.Serializer):
    promotions = PromotionSerializer(many=True)


class DryRunResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField(allow_blank=True)
    errors = ProblemSerializer(many=True)
    change = ChangeRequestDetailSerializer()


# --- audit ----------------------------------------------------------------------


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_name")
    cluster = serializers.CharField(source="cluster_name", allow_blank=True)
    kind = serializers.CharField(source="configuration_kind", allow_blank=True)
    name = serializers.CharField(source="configuration_name", allow_blank=True)
    change = serializers.IntegerField(source="change_id", allow_null=True)
    detail = serializers.JSONField(
        help_text="What was sent and what the cluster answered, counts, reasons."
    )

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "at",
            "actor",
            "action",
            "cluster",
            "kind",
            "name",
            "change",
            "summary",
            "detail",
        ]
