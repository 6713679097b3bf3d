"""Clusters and what sync observes in them: configurations with full history.

Rows here are written only by services (``webhooks_ui.services``); models hold
no behaviour beyond small read-only conveniences.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from webhooks_ui.domain import change_window
from webhooks_ui.domain.kinds import MUTATING, VALIDATING
from webhooks_ui.fields import OrderedJSONField


def validate_change_window(value: str) -> None:
    try:
        change_window.parse(value)
    except change_window.ChangeWindowError as exc:
        raise ValidationError(str(exc)) from None


class Cluster(models.Model):
    """A Kubernetes cluster the dashboard reads (and later writes) webhooks in.

    Credentials live only as a Fernet token (``credentials_encrypted``); they are
    decrypted by ``services.credentials`` when a client is built, never rendered.
    """

    class AuthMethod(models.TextChoices):
        KUBECONFIG = "kubeconfig", _("kubeconfig")
        TOKEN = "token", _("bearer token")
        IN_CLUSTER = "in-cluster", _("in-cluster service account")

    name = models.SlugField(_("name"), max_length=63, unique=True)
    display_name = models.CharField(_("display name"), max_length=200, blank=True)
    environment = models.CharField(
        _("environment"), max_length=63, blank=True, help_text=_("A free label.")
    )
    api_server_url = models.CharField(_("API server URL"), max_length=500)
    auth_method = models.CharField(
        _("authentication"), max_length=16, choices=AuthMethod.choices
    )
    # Fernet token (ASCII) of a JSON document; see services.credentials.
    credentials_encrypted = models.TextField(editable=False, blank=True)
    insecure_skip_tls_verify = models.BooleanField(
        _("skip TLS verification"),
        default=False,
        help_text=_("Only ever set when registration was explicitly allowed to."),
    )
    is_sandbox = models.BooleanField(_("sandbox"), default=False)
    # Approval policy: how a change request reaches this cluster.
    approvals_required = models.PositiveSmallIntegerField(
        _("approvals required"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text=_("Approvals from people other than the author before apply."),
    )
    author_may_apply = models.BooleanField(
        _("author may apply"),
        default=False,
        help_text=_("Whether an operator may apply a change they wrote themselves."),
    )
    change_window = models.CharField(
        _("change window"),
        max_length=200,
        blank=True,
        validators=[validate_change_window],
        help_text=_(
            "When changes may be applied, e.g. 'Mon-Fri 09:00-17:00' (UTC) or "
            "'Mon-Fri 09:00-17:00 Europe/Berlin'. Empty: any time."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["environment", "name"])]

    def __str__(self) -> str:
        return self.display_name or self.name

    def __repr__(self) -> str:
        # Never include credentials, not even their ciphertext.
        return f"<Cluster {self.pk}: {self.name}>"

    @property
    def change_window_text(self) -> str:
        """The change window with its time zone spelled out ("" for none)."""
        try:
            return change_window.parse(self.change_window).describe()
        except change_window.ChangeWindowError:
            return self.change_window


class SyncRun(models.Model):
    """One attempt to read a cluster's configurations: the record sync leaves.

    It is also the event record of a sync (who/what triggered it, the outcome).
    """

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="sync_runs"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.RUNNING
    )
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration = models.DurationField(null=True, blank=True)
    created_count = models.PositiveIntegerField(default=0)
    updated_count = models.PositiveIntegerField(default=0)
    deleted_count = models.PositiveIntegerField(default=0)
    unchanged_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    triggered_by = models.CharField(max_length=150, blank=True)
    triggered_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    server_version = models.CharField(max_length=64, blank=True)
    # List resourceVersion per kind: where a watch resumes after this sync.
    resource_versions = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["cluster", "-started_at"]),
            models.Index(fields=["status", "-started_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.cluster_id} {self.status} at {self.started_at:%Y-%m-%d %H:%M:%S}"


class WebhookConfiguration(models.Model):
    """The latest observed state of one Mutating/ValidatingWebhookConfiguration.

    Kept after deletion in the cluster (``deleted_at``) so history stays browsable.
    """

    class Kind(models.TextChoices):
        MUTATING = MUTATING, _("mutating")
        VALIDATING = VALIDATING, _("validating")

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="configurations"
    )
    kind = models.CharField(max_length=40, choices=Kind.choices)
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=64, blank=True)
    resource_version = models.CharField(max_length=64, blank=True)
    generation = models.BigIntegerField(default=0)
    raw = OrderedJSONField(help_text=_("The object as the API server served it."))
    content_hash = models.CharField(max_length=64)
    # Fingerprint of the normalised object (defaults applied, server fields and
    # injected caBundles left out): equal across clusters means "identical".
    comparison_hash = models.CharField(max_length=64, blank=True, db_index=True)
    webhook_count = models.PositiveIntegerField(default=0)
    fail_closed_count = models.PositiveIntegerField(default=0)
    revision_count = models.PositiveIntegerField(default=0)
    first_seen = models.DateTimeField()
    last_changed = models.DateTimeField()
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["cluster", "kind", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "kind", "name"], name="uniq_configuration_name"
            )
        ]
        indexes = [
            models.Index(fields=["cluster", "deleted_at", "kind", "name"]),
            models.Index(fields=["name"]),
            models.Index(fields=["-last_changed"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class ConfigurationRevision(models.Model):
    """An append-only snapshot, written only when a configuration's content changed.

    ``sync_run`` is null for revisions observed through a watch stream.
    """

    class Change(models.TextChoices):
        CREATED = "created", _("created")
        MODIFIED = "modified", _("modified")
        DELETED = "deleted", _("deleted")

    configuration = models.ForeignKey(
        WebhookConfiguration, on_delete=models.CASCADE, related_name="revisions"
    )
    number = models.PositiveIntegerField()
    change = models.CharField(max_length=16, choices=Change.choices)
    raw = OrderedJSONField()
    resource_version = models.CharField(max_length=64, blank=True)
    content_hash = models.CharField(max_length=64)
    observed_at = models.DateTimeField()
    sync_run = models.ForeignKey(
        SyncRun,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="revisions",
    )

    class Meta:
        ordering = ["configuration", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["configuration", "number"], name="uniq_revision_number"
            )
        ]
        indexes = [models.Index(fields=["-observed_at"])]

    def __str__(self) -> str:
        return f"{self.configuration_id} #{self.number} {self.change}"


class Namespace(models.Model):
    """A namespace of a cluster, with labels: what namespaceSelectors match."""

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="namespaces"
    )
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=64, blank=True)
    labels = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["cluster", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "name"], name="uniq_namespace_name"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Service(models.Model):
    """A Service some webhook calls, with the readiness of its endpoints.

    Only services referenced by a webhook's clientConfig are kept; ``exists`` is
    false when a webhook points at a service the cluster does not have.
    """

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="services"
    )
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    exists = models.BooleanField(default=True)
    ports = models.JSONField(default=list, blank=True)
    ready_endpoint_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["cluster", "namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "namespace", "name"], name="uniq_service_name"
            )
        ]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def has_ready_endpoints(self) -> bool:
        return self.ready_endpoint_count > 0


class DiscoveredResource(models.Model):
    """An API resource the cluster serves: what webhook rules can match."""

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="resources"
    )
    group = models.CharField(max_length=253, blank=True)
    version = models.CharField(max_length=63)
    resource = models.CharField(max_length=253)
    subresource = models.CharField(max_length=253, blank=True)
    kind = models.CharField(max_length=253, blank=True)
    namespaced = models.BooleanField(default=False)
    verbs = models.JSONField(default=list, blank=True)
    preferred = models.BooleanField(default=False)

    class Meta:
        ordering = ["cluster", "group", "version", "resource", "subresource"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "group", "version", "resource", "subresource"],
                name="uniq_discovered_resource",
            )
        ]

    def __str__(self) -> str:
        path = self.resource + (f"/{self.subresource}" if self.subresource else "")
        return f"{self.group or 'core'}/{self.version} {path}"


class ClusterMembership(models.Model):
    """A role on one cluster, granted to a user or to a group (exactly one).

    Any role implies read access to the cluster; superusers hold every role.
    """

    class Role(models.TextChoices):
        VIEWER = "viewer", _("viewer")
        EDITOR = "editor", _("editor")
        APPROVER = "approver", _("approver")
        OPERATOR = "operator", _("operator")
        ADMIN = "admin", _("admin")

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="cluster_memberships",
    )
    group = models.ForeignKey(
        "auth.Group",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="cluster_memberships",
    )
    role = models.CharField(max_length=16, choices=Role.choices)

    class Meta:
        ordering = ["cluster", "role"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(user__isnull=False, group__isnull=True)
                    | models.Q(user__isnull=True, group__isnull=False)
                ),
                name="membership_user_xor_group",
            ),
            models.UniqueConstraint(
                fields=["cluster", "user", "role"], name="uniq_user_role"
            ),
            models.UniqueConstraint(
                fields=["cluster", "group", "role"], name="uniq_group_role"
            ),
        ]

    def __str__(self) -> str:
        holder = self.user or self.group
        return f"{holder} is {self.role} on {self.cluster_id}"


class RiskFinding(models.Model):
    """A risk the checks found, as of the last analysis of its cluster (or fleet).

    Derived data: replaced wholesale for a cluster after each sync that
    changed it, and for the fleet after any sync, so pages never compute it.
    """

    class Severity(models.TextChoices):
        CRITICAL = "critical", _("critical")
        WARNING = "warning", _("warning")
        INFO = "info", _("info")

    class Scope(models.TextChoices):
        CLUSTER = "cluster", _("cluster")
        FLEET = "fleet", _("across clusters")

    scope = models.CharField(max_length=16, choices=Scope.choices)
    # Null for fleet findings, which compare clusters.
    cluster = models.ForeignKey(
        Cluster,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="findings",
    )
    configuration = models.ForeignKey(
        WebhookConfiguration,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="findings",
    )
    configuration_kind = models.CharField(max_length=40)
    configuration_name = models.CharField(max_length=253)
    check_id = models.CharField(max_length=64)
    severity = models.CharField(max_length=16, choices=Severity.choices)
    # 0 = critical: sorts worst first.
    rank = models.PositiveSmallIntegerField()
    webhook = models.CharField(max_length=253, blank=True)
    field = models.CharField(max_length=500, blank=True)
    message = models.TextField()
    fix = models.TextField()
    detail = models.JSONField(default=list, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["rank", "configuration_name", "webhook", "check_id"]
        indexes = [
            models.Index(fields=["cluster", "rank"]),
            models.Index(fields=["scope", "rank", "check_id"]),
            models.Index(fields=["configuration", "rank"]),
        ]

    def __str__(self) -> str:
        return f"{self.severity} {self.check_id} on {self.configuration_name}"


class ChangeRequest(models.Model):
    """A proposed create, update or delete of one configuration on one cluster.

    Starts as a draft that is saved on every edit, valid or not, so nothing
    typed is ever lost; ``proposed_text`` is the user's YAML exactly as typed
    and ``base_object`` the live object (as last synced) it was made from.
    """

    class State(models.TextChoices):
        DRAFT = "draft", _("draft")
        IN_REVIEW = "in_review", _("in review")
        APPROVED = "approved", _("approved")
        APPLIED = "applied", _("applied")
        REJECTED = "rejected", _("rejected")
        WITHDRAWN = "withdrawn", _("withdrawn")
        FAILED = "failed", _("failed")
        STALE = "stale", _("stale")

    class Action(models.TextChoices):
        CREATE = "create", _("create")
        UPDATE = "update", _("update")
        DELETE = "delete", _("delete")

    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="change_requests"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="change_requests",
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    action = models.CharField(max_length=16, choices=Action.choices)
    kind = models.CharField(max_length=40, choices=WebhookConfiguration.Kind.choices)
    name = models.CharField(max_length=253, blank=True)
    # The live object as last synced (raw, server fields kept); null for create.
    base_object = OrderedJSONField(null=True, blank=True)
    base_resource_version = models.CharField(max_length=64, blank=True)
    # What the user typed, verbatim, even when it does not parse.
    proposed_text = models.TextField(blank=True)
    # The parsed text; null when it does not parse (or for a delete).
    proposed_object = OrderedJSONField(null=True, blank=True)
    # Local validation of the last save: [{"field", "reason", "message",
    # "line"}]; a parse error has field "" and the line/column in its message.
    validation_errors = models.JSONField(default=list, blank=True)
    # The apiserver's last dry-run verdict: {"ok", "errors", "message", "at"}.
    dry_run_result = models.JSONField(null=True, blank=True)
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    # Bumped on every change of the request: the API's ETag (lost updates).
    version = models.PositiveIntegerField(default=1)
    proposed_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The revision sync recorded for the object the apply wrote.
    applied_revision = models.ForeignKey(
        "ConfigurationRevision",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # Why the last apply failed, or why the request went stale:
    # {"message", "causes": [...], "at"}.
    outcome = models.JSONField(null=True, blank=True)
    # The live object found when the request went stale (for the three-way view).
    live_object = OrderedJSONField(null=True, blank=True)
    live_resource_version = models.CharField(max_length=64, blank=True)
    promoted_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="promotions",
    )
    restores_revision = models.ForeignKey(
        "ConfigurationRevision",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    OPEN_STATES = (State.IN_REVIEW, State.APPROVED, State.STALE)
    CLOSED_STATES = (State.APPLIED, State.REJECTED, State.WITHDRAWN)

    class Meta:
        ordering = ["-updated_at", "-pk"]
        indexes = [
            models.Index(fields=["author", "state", "-updated_at"]),
            models.Index(fields=["cluster", "kind", "name", "state"]),
            models.Index(fields=["state", "-updated_at"]),
        ]

    def __str__(self) -> str:
        target = f"{self.kind}/{self.name}"
        return f"{self.action} {target} on {self.cluster_id} ({self.state})"

    @property
    def etag(self) -> str:
        return f'"cr-{self.pk}-v{self.version}"'


class ChangeReview(models.Model):
    """A reviewer's verdict or a comment in a change request's discussion.

    Approvals are dismissed (never deleted) when the proposal changes after
    them, so the thread still shows who approved what and when.
    """

    class Verdict(models.TextChoices):
        APPROVE = "approve", _("approved")
        REQUEST_CHANGES = "request_changes", _("requested changes")
        COMMENT = "comment", _("commented")
        REJECT = "reject", _("rejected")

    change = models.ForeignKey(
        ChangeRequest, on_delete=models.CASCADE, related_name="reviews"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    verdict = models.CharField(max_length=20, choices=Verdict.choices)
    body = models.TextField(blank=True)
    # The change request's version the verdict was given on.
    change_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    dismissed_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["change", "verdict", "dismissed_at"])]

    def __str__(self) -> str:
        return f"{self.reviewer_id} {self.verdict} change {self.change_id}"

    def save(self, *args, **kwargs):
        # The last line of defence (admin, shell, scripts): services check first.
        if (
            self.verdict == self.Verdict.APPROVE
            and self.reviewer_id == self.change.author_id
        ):
            raise PermissionError("The author of a change cannot approve it.")
        super().save(*args, **kwargs)


class AppendOnlyQuerySet(models.QuerySet):
    """Audit rows are written once: bulk updates and deletes are refused."""

    def update(self, **kwargs):
        raise PermissionError("Audit events are append-only.")

    def delete(self):
        raise PermissionError("Audit events are append-only.")


class AuditEvent(models.Model):
    """One thing that happened: a state change, a sync, a push, a sign-in.

    Append-only through the application (saving an existing row, deleting one,
    bulk updates and deletes all raise). References to clusters, users and
    change requests are kept without database constraints, and their names are
    copied, so the record outlives what it mentions.
    """

    at = models.DateTimeField(db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    # The username at the time, or "system" for background work.
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=40, db_index=True)
    cluster = models.ForeignKey(
        Cluster,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    cluster_name = models.CharField(max_length=63, blank=True)
    configuration_kind = models.CharField(max_length=40, blank=True)
    configuration_name = models.CharField(max_length=253, blank=True)
    change = models.ForeignKey(
        ChangeRequest,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    summary = models.TextField()
    # What was sent and what the cluster answered, counts, reasons.
    detail = models.JSONField(default=dict, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [
            models.Index(fields=["cluster", "-at"]),
            models.Index(fields=["actor", "-at"]),
            models.Index(fields=["configuration_name", "-at"]),
            models.Index(fields=["change", "-at"]),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_name} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise PermissionError("Audit events are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Audit events are append-only.")


class ApiToken(models.Model):
    """A per-user bearer token for scripts calling the REST API.

    Only a SHA-256 hash of the token is stored (the token is shown once, at
    creation); ``prefix`` is its first characters, so a person can tell their
    tokens apart. A revoked token stays for the record and never works again.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
