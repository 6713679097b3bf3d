"""/api/: the REST API (v1), its OpenAPI schema and its documentation page.

The nouns and slugs are the UI's (webhooks_ui/urls.py):
clusters/<cluster>/<kind>/<name>/ is a configuration in both.
"""

from django.urls import include, path, re_path

from webhooks_ui import converters
from webhooks_ui.api.base import NotFoundView
from webhooks_ui.api.views import (
    audit,
    changes,
    cluster_admin,
    clusters,
    configurations,
    coverage,
    docs,
    findings,
    tokens,
    validate,
)

converters.register()

app_name = "api"

_config = "clusters/<slug:cluster>/<kind:kind>/<str:name>/"

v1 = [
    path("clusters/", clusters.ClusterList.as_view(), name="cluster-list"),
    path(
        "clusters/<slug:cluster>/",
        clusters.ClusterDetail.as_view(),
        name="cluster-detail",
    ),
    path(
        "clusters/<slug:cluster>/sync/",
        clusters.ClusterSync.as_view(),
        name="cluster-sync",
    ),
    path(
        "clusters/<slug:cluster>/sync/status/",
        clusters.ClusterSyncStatus.as_view(),
        name="cluster-sync-status",
    ),
    path(
        "clusters/<slug:cluster>/test-connection/",
        clusters.ClusterTestConnection.as_view(),
        name="cluster-test-connection",
    ),
    path(
        "clusters/<slug:cluster>/policy/",
        cluster_admin.ClusterPolicy.as_view(),
        name="cluster-policy",
    ),
    path(
        "clusters/<slug:cluster>/memberships/",
        cluster_admin.ClusterMembershipList.as_view(),
        name="cluster-membership-list",
    ),
    path(
        "clusters/<slug:cluster>/memberships/<id:membership_id>/",
        cluster_admin.ClusterMembershipDetail.as_view(),
        name="cluster-membership-detail",
    ),
    path(
        "configurations/",
        configurations.ConfigurationList.as_view(),
        name="configuration-list",
    ),
    path(
        _config,
        configurations.ConfigurationDetail.as_view(),
        name="configuration-detail",
    ),
    path(
        _config + "history/",
        configurations.ConfigurationRevisions.as_view(),
        name="configuration-history",
    ),
    path(
        _config + "history/diff/",
        configurations.ConfigurationRevisionDiff.as_view(),
        name="configuration-diff",
    ),
    path(
        _config + "coverage/",
        coverage.ConfigurationCoverage.as_view(),
        name="configuration-coverage",
    ),
    path(
        _config + "findings/",
        findings.ConfigurationFindingList.as_view(),
        name="configuration-findings",
    ),
    path(
        "compare/<kind:kind>/<str:name>/",
        configurations.ConfigurationCompare.as_view(),
        name="configuration-compare",
    ),
    path("coverage/", coverage.CoverageExplorer.as_view(), name="coverage-explorer"),
    path("findings/", findings.FindingList.as_view(), name="finding-list"),
    path("validate/", validate.Validate.as_view(), name="validate"),
    path(
        _config + "history/<id:number>/restore/",
        changes.RevisionRestore.as_view(),
        name="configuration-restore",
    ),
    path("changes/", changes.ChangeList.as_view(), name="change-list"),
    path(
        "changes/<id:change_id>/",
        changes.ChangeDetail.as_view(),
        name="change-detail",
    ),
    *[
        path(
            f"changes/<id:change_id>/{action}/",
            view.as_view(),
            name=f"change-{action}",
        )
        for action, view in [
            ("propose", changes.ChangePropose),
            ("approve", changes.ChangeApprove),
            ("request-changes", changes.ChangeRequestChanges),
            ("comment", changes.ChangeComment),
            ("reject", changes.ChangeReject),
            ("reopen", changes.ChangeReopen),
            ("withdraw", changes.ChangeWithdraw),
            ("apply", changes.ChangeApply),
            ("rebase", changes.ChangeRebase),
            ("dry-run", changes.ChangeDryRun),
            ("promote", changes.ChangePromote),
        ]
    ],
    path("audit/", audit.AuditEventList.as_view(), name="audit-list"),
    path("audit/export/", audit.AuditExport.as_view(), name="audit-export"),
    path("tokens/", tokens.TokenList.as_view(), name="token-list"),
    path("tokens/<id:token_id>/", tokens.TokenDetail.as_view(), name="token-detail"),
    re_path(r"^.*$", NotFoundView.as_view(), name="not-found"),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", docs.SchemaView.as_view(), name="schema"),
    path("docs/", docs.api_docs, name="docs"),
]
