"""A client generated from the served OpenAPI schema works against the live API.

The schema is fetched from ``/api/schema/`` over a real socket, a Python client
is generated from it with openapi-python-client (as a team automating against
the dashboard would), and a script's journey runs through that client only:
list clusters, validate a manifest, open and propose a change, be refused
self-approval, have it approved and applied, read the audit trail. The client
is built with ``raise_on_unexpected_status``, so any answer the schema does not
document fails the test, and every body is parsed into the generated models, so
a documented shape that differs from the real one fails too.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml

from webhooks_ui.services.tokens import api_token_create

pytest.importorskip("openapi_python_client")

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "dashboard_api_client"

INVALID_MANIFEST = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: from-a-pipeline
webhooks:
- name: check.example.com
  clientConfig:
    service: {namespace: default, name: checker}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 31
"""


@pytest.fixture
def api_package(live_server, tmp_path, admin_user, clusters):
    """The generated client package, imported fresh from ``tmp_path``."""
    secret = api_token_create(user=admin_user, name="codegen").secret
    served = httpx.get(
        f"{live_server.url}/api/schema/?format=json",
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )
    assert served.status_code == 200, served.text[:500]
    schema = tmp_path / "openapi.json"
    schema.write_bytes(served.content)
    config = tmp_path / "codegen.yaml"
    # No formatter hooks: the client must work as generated.
    config.write_text(yaml.safe_dump({"post_hooks": []}))
    generated = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            f"--path={schema}",
            "--meta=none",
            f"--output-path={tmp_path / PACKAGE}",
            f"--config={config}",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def test_generated_client_drives_a_change_from_validation_to_apply(
    transactional_db, live_server, api_package, clusters, role_user
):
    pkg = api_package
    models = importlib.import_module(f"{PACKAGE}.models")

    def api(operation: str):
        """One generated operation module, e.g. ``changes.v1_changes_create``."""
        return importlib.import_module(f"{PACKAGE}.api.{operation}")

    alpha = clusters[0]
    author, approver, operator = (
        role_user("editor"),
        role_user("approver"),
        role_user("operator"),
    )

    def client_for(user):
        secret = api_token_create(user=user, name="script").secret
        return pkg.AuthenticatedClient(
            base_url=live_server.url,
            token=secret,
            prefix="Bearer",
            raise_on_unexpected_status=True,
            timeout=httpx.Timeout(60),
        )

    as_author, as_approver, as_operator = map(client_for, (author, approver, operator))

    # The author sees alpha (their cluster) and not beta.
    listed = api("clusters.v1_clusters_list").sync(client=as_author)
    assert isinstance(listed, models.PaginatedClusterList)
    assert [c.name for c in listed.results] == [alpha.name]

    # A pipeline's manifest is checked without a cluster: the cause names the field.
    report = api("validate.v1_validate_create").sync(
        client=as_author, body=models.ManifestWrapper(manifest=INVALID_MANIFEST)
    )
    assert isinstance(report, models.ValidationReport)
    assert report.valid is False
    (checked,) = report.results
    assert checked.status.code == 422  # the apiserver's Status shape
    causes = [cause.field for cause in checked.status.details.causes]
    assert "webhooks[0].timeoutSeconds" in causes

    # A bot opens a change from a merge patch on the live object and proposes it.
    created = api("changes.v1_changes_create").sync(
        client=as_author,
        body=models.ChangeCreate(
            cluster=alpha.name,
            action=models.ActionEnum.UPDATE,
            kind="validating",
            name="shared-checks",
            title="Label the owning team",
            patch={"metadata": {"labels": {"team": "platform"}}},
            propose=True,
        ),
    )
    assert isinstance(created, models.ChangeCreated), created
    assert created.state == models.StateEnum.IN_REVIEW, created.propose_error
    change_id = str(created.id)

    # The author cannot approve their own change: a documented 403, parsed.
    refused = api("changes.v1_changes_approve_create").sync_detailed(
        change_id, client=as_author, body=models.ReviewBody(body="lgtm")
    )
    assert refused.status_code == 403
    assert isinstance(refused.parsed, models.Error)
    assert "author" in refused.parsed.error.message.lower()

    # A stale ETag is refused before anything changes.
    stale = api("changes.v1_changes_partial_update").sync_detailed(
        change_id,
        client=as_author,
        body=models.PatchedChangeUpdate(text=created.text),
        if_match='"0"',
    )
    assert stale.status_code == 412
    assert isinstance(stale.parsed, models.Error)

    approved = api("changes.v1_changes_approve_create").sync(
        change_id, client=as_approver, body=models.ReviewBody(body="ok")
    )
    assert isinstance(approved, models.ChangeRequestDetail)
    assert approved.state == models.StateEnum.APPROVED

    applied = api("changes.v1_changes_apply_create").sync(
        change_id, client=as_operator, if_match=approved.etag
    )
    assert isinstance(applied, models.ApplyResult), applied
    assert applied.change.state == models.StateEnum.APPLIED
    assert applied.change.applied_revision is not None

    # The configuration, resynced at once, carries the label on the cluster.
    detail = api("configurations.v1_configurations_retrieve").sync(
        alpha.name,
        models.V1ConfigurationsRetrieveKind.VALIDATING,
        "shared-checks",
        client=as_author,
    )
    assert isinstance(detail, models.ConfigurationDetail)
    assert detail.raw["metadata"]["labels"]["team"] == "platform"

    # The audit trail lists each step, filterable by cluster.
    trail = api("audit.v1_audit_list").sync(
        client=as_author, cluster=alpha.name, page_size=100
    )
    assert isinstance(trail, models.PaginatedAuditEventList)
    actions = {event.action for event in trail.results}
    assert {"change.proposed", "change.approved", "change.applied"} <= actions

    # An undocumented answer would raise; a documented 404 parses as the error shape.
    missing = api("changes.v1_changes_retrieve").sync_detailed(
        "999999", client=as_author
    )
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Error)
