"""URLs of the dashboard app; the REST API mirrors these nouns under /api/v1/."""

from django.contrib.auth import views as auth_views
from django.urls import path

from webhooks_ui import converters
from webhooks_ui.views import (
    audit,
    change_list,
    changes,
    cluster_settings,
    clusters,
    configurations,
    coverage,
    drafts,
    findings,
    overview,
)

converters.register()

_config = "clusters/<slug:cluster>/<kind:kind>/<str:name>/"

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", overview.overview, name="overview"),
    path("findings/", findings.finding_list, name="finding-list"),
    path("clusters/<slug:cluster>/", clusters.cluster_detail, name="cluster-detail"),
    path("clusters/<slug:cluster>/sync/", clusters.cluster_sync, name="cluster-sync"),
    path(
        "clusters/<slug:cluster>/test-connection/",
        clusters.cluster_test_connection,
        name="cluster-test-connection",
    ),
    path(
        "clusters/<slug:cluster>/sync/status/",
        clusters.cluster_sync_status,
        name="cluster-sync-status",
    ),
    path(
        _config,
        configurations.configuration_detail,
        name="configuration-detail",
    ),
    path(
        _config + "yaml/", configurations.configuration_yaml, name="configuration-yaml"
    ),
    path(
        _config + "history/",
        configurations.configuration_history,
        name="configuration-history",
    ),
    path(
        "compare/<kind:kind>/<str:name>/",
        configurations.configuration_compare,
        name="configuration-compare",
    ),
    path("coverage/", coverage.coverage_explorer, name="coverage-explorer"),
    path(
        "clusters/<slug:cluster>/coverage/",
        coverage.cluster_coverage,
        name="cluster-coverage",
    ),
    path(
        _config + "coverage/",
        coverage.configuration_coverage,
        name="configuration-coverage",
    ),
    path("drafts/", drafts.draft_index, name="draft-list"),
    path("drafts/<id:pk>/", drafts.draft_detail, name="draft-detail"),
    path("drafts/<id:pk>/validate/", drafts.draft_validate, name="draft-validate"),
    path("drafts/<id:pk>/form/", drafts.draft_form_save, name="draft-form"),
    path("drafts/<id:pk>/dry-run/", drafts.draft_dry_run, name="draft-dry-run"),
    path("drafts/<id:pk>/discard/", drafts.draft_discard, name="draft-discard"),
    path(
        "clusters/<slug:cluster>/drafts/new/<kind:kind>/",
        drafts.draft_new,
        name="draft-new",
    ),
    path(_config + "edit/", drafts.draft_edit, name="draft-edit"),
    path(_config + "delete/", drafts.draft_delete, name="draft-delete"),
    path(_config + "clone/", drafts.draft_clone, name="draft-clone"),
    # One change request: review, apply, and what follows (views/changes.py).
    path("changes/<id:pk>/", changes.change_detail, name="change-detail"),
    path("changes/<id:pk>/propose/", changes.change_propose, name="change-propose"),
    path("changes/<id:pk>/review/", changes.change_review, name="change-review"),
    path("changes/<id:pk>/apply/", changes.change_apply, name="change-apply"),
    path("changes/<id:pk>/reopen/", changes.change_reopen, name="change-reopen"),
    path("changes/<id:pk>/withdraw/", changes.change_withdraw, name="change-withdraw"),
    path("changes/<id:pk>/rebase/", changes.change_rebase, name="change-rebase"),
    path("changes/<id:pk>/promote/", changes.change_promote, name="change-promote"),
    path(
        _config + "history/<id:number>/restore/",
        changes.revision_restore,
        name="revision-restore",
    ),
    # Around change requests: the list, the audit log, a cluster's settings.
    path("changes/", change_list.change_list, name="change-list"),
    path("audit/", audit.audit_list, name="audit-list"),
    path("audit/export/", audit.audit_export, name="audit-export"),
    path(
        "clusters/<slug:cluster>/settings/",
        cluster_settings.cluster_settings,
        name="cluster-settings",
    ),
    # Memberships, managed from a cluster's settings page (admin role).
    path(
        "clusters/<slug:cluster>/settings/memberships/",
        cluster_settings.cluster_membership_grant,
        name="cluster-membership-grant",
    ),
    path(
        "clusters/<slug:cluster>/settings/memberships/<id:membership_id>/revoke/",
        cluster_settings.cluster_membership_revoke,
        name="cluster-membership-revoke",
    ),
]
