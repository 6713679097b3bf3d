"""Admin pages for the synced data: read-mostly, credentials never shown."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from webhooks_ui.models import (
    AuditEvent,
    ChangeRequest,
    ChangeReview,
    Cluster,
    ClusterMembership,
    ConfigurationRevision,
    DiscoveredResource,
    Namespace,
    Service,
    SyncRun,
    WebhookConfiguration,
)
from webhooks_ui.services.audit import Action, audit_record
from webhooks_ui.services.policy import POLICY_CHANGED, policy_of


class ClusterMembershipInline(admin.TabularInline):
    """Who holds which role on the cluster (users or groups)."""

    model = ClusterMembership
    extra = 0
    autocomplete_fields = ["user", "group"]


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    inlines = [ClusterMembershipInline]
    # Credentials are excluded from every form and list: register or rotate them
    # with ``manage.py add_cluster``, which encrypts them.
    list_display = ["name", "display_name", "environment", "api_server_url"]
    list_filter = ["environment", "auth_method", "is_sandbox"]
    search_fields = ["name", "display_name", "environment"]
    exclude = ["credentials_encrypted"]
    readonly_fields = [
        "api_server_url",
        "auth_method",
        "insecure_skip_tls_verify",
        "credentials_status",
        "created_at",
        "updated_at",
    ]

    @admin.display(description=_("credentials"))
    def credentials_status(self, obj: Cluster) -> str:
        return _("stored, encrypted") if obj.credentials_encrypted else _("none")

    # Changes made here are audited like the same changes made on the
    # cluster's settings page.
    def save_model(self, request, obj: Cluster, form, change: bool) -> None:
        before = policy_of(Cluster.objects.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)
        after = policy_of(obj)
        if before is not None and before != after:
            changed = sorted(k for k in after if before[k] != after[k])
            audit_record(
                action=POLICY_CHANGED,
                actor=request.user,
                cluster=obj,
                summary="changed the approval policy in the admin: "
                + ", ".join(changed),
                detail={"before": before, "after": after, "via": "admin"},
            )

    def save_formset(self, request, form, formset, change: bool) -> None:
        # Read what is removed before saving deletes it.
        removed = [
            (f.instance.pk, str(f.instance.user or f.instance.group), f.instance.role)
            for f in formset.deleted_forms
            if isinstance(f.instance, ClusterMembership) and f.instance.pk
        ]
        super().save_formset(request, form, formset, change)
        cluster = form.instance
        granted = [
            m for m in formset.new_objects if isinstance(m, ClusterMembership)
        ] + [
            m
            for m, _fields in formset.changed_objects
            if isinstance(m, ClusterMembership)
        ]
        for membership in granted:
            holder = str(membership.user or membership.group)
            audit_record(
                action=Action.MEMBERSHIP_GRANTED,
                actor=request.user,
                cluster=cluster,
                summary=f"granted {membership.role} to {holder} in the admin",
                detail={"role": membership.role, "holder": holder, "via": "admin"},
            )
        for pk, holder, role in removed:
            audit_record(
                action=Action.MEMBERSHIP_REVOKED,
                actor=request.user,
                cluster=cluster,
                summary=f"revoked {role} from {holder} in the admin",
                detail={"role": role, "holder": holder, "membership": pk},
            )


@admin.register(SyncRun)
class SyncRunAdmin(admin.ModelAdmin):
    list_display = [
        "cluster",
        "status",
        "started_at",
        "duration",
        "created_count",
        "updated_count",
        "deleted_count",
        "unchanged_count",
    ]
    list_filter = ["status", "cluster"]
    list_select_related = ["cluster"]
    date_hierarchy = "started_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Synced rows mirror the cluster: editing them here would only be overwritten."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(WebhookConfiguration)
class WebhookConfigurationAdmin(ReadOnlyAdmin):
    list_display = [
        "name",
        "kind",
        "cluster",
        "webhook_count",
        "fail_closed_count",
        "revision_count",
        "last_changed",
        "deleted_at",
    ]
    list_filter = ["kind", "cluster"]
    list_select_related = ["cluster"]
    search_fields = ["name"]


@admin.register(ConfigurationRevision)
class ConfigurationRevisionAdmin(ReadOnlyAdmin):
    list_display = ["configuration", "number", "change", "observed_at"]
    list_filter = ["change"]
    list_select_related = ["configuration"]
    raw_id_fields = ["configuration", "sync_run"]


@admin.register(Namespace)
class NamespaceAdmin(ReadOnlyAdmin):
    list_display = ["name", "cluster"]
    list_filter = ["cluster"]
    list_select_related = ["cluster"]
    search_fields = ["name"]


@admin.register(Service)
class ServiceAdmin(ReadOnlyAdmin):
    list_display = ["name", "namespace", "cluster", "exists", "ready_endpoint_count"]
    list_filter = ["cluster", "exists"]
    list_select_related = ["cluster"]
    search_fields = ["name", "namespace"]


@admin.register(DiscoveredResource)
class DiscoveredResourceAdmin(ReadOnlyAdmin):
    list_display = [
        "resource",
        "subresource",
        "group",
        "version",
        "kind",
        "namespaced",
        "preferred",
        "cluster",
    ]
    list_filter = ["cluster", "preferred", "namespaced"]
    list_select_related = ["cluster"]
    search_fields = ["resource", "group", "kind"]


@admin.register(ClusterMembership)
class ClusterMembershipAdmin(admin.ModelAdmin):
    list_display = ["cluster", "user", "group", "role"]
    list_filter = ["role", "cluster"]
    search_fields = ["user__username", "group__name", "cluster__name"]
    autocomplete_fields = ["user", "group"]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Workflow records change only through the services (with their checks)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ChangeRequest)
class ChangeRequestAdmin(ReadOnlyAdmin):
    list_display = ["pk", "cluster", "action", "kind", "name", "state", "author"]
    list_filter = ["state", "action", "cluster"]
    search_fields = ["name", "title"]


@admin.register(ChangeReview)
class ChangeReviewAdmin(ReadOnlyAdmin):
    list_display = ["change", "reviewer", "verdict", "created_at", "dismissed_at"]
    list_filter = ["verdict"]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_name", "action", "cluster_name", "summary"]
    list_filter = ["action", "cluster_name"]
    search_fields = ["summary", "actor_name", "configuration_name"]
