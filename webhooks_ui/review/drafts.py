"""The editor page: a draft, its problems, and what it would change.

Read side only: finding a user's drafts, and building the preview (diff
against the live object as last synced, risks added or removed, who else
manages the object).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from hashlib import sha256
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from webhooks_ui.domain.coverage import (
    Coverage,
    cluster_coverage,
    prepare_configurations,
)
from webhooks_ui.domain.drafting import (
    CoverageChange,
    carry_ca_bundles,
    coverage_delta,
    risk_delta,
)
from webhooks_ui.domain.form_model import form_blockers
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.manifest import ManifestError, load_documents
from webhooks_ui.domain.ownership import Owner, ca_bundle_injected, detect_owners
from webhooks_ui.domain.risk import Finding, check_configuration
from webhooks_ui.models import ChangeRequest, WebhookConfiguration
from webhooks_ui.permissions import AnyUser, visible_clusters
from webhooks_ui.review.coverage import ClusterIndex, cluster_index
from webhooks_ui.review.history import ObjectDiff, object_diff


def draft_list(*, user: AnyUser) -> QuerySet[ChangeRequest]:
    """The user's open drafts on clusters they can still see, newest first."""
    return (
        ChangeRequest.objects.filter(
            author_id=user.pk,
            state=ChangeRequest.State.DRAFT,
            cluster__in=visible_clusters(user),
        )
        .select_related("cluster")
        .defer(
            "cluster__credentials_encrypted",
            "base_object",
            "proposed_object",
            "proposed_text",
        )
        .order_by("-updated_at", "-pk")
    )


def draft_get(*, user: AnyUser, pk: int) -> ChangeRequest:
    """One of the user's own drafts; anyone else's is a 404 (not confirmed)."""
    return get_object_or_404(
        ChangeRequest.objects.select_related("cluster").defer(
            "cluster__credentials_encrypted"
        ),
        pk=pk,
        author_id=user.pk,
        cluster__in=visible_clusters(user),
    )


@dataclass(frozen=True)
class DraftPreview:
    """Everything around the text: errors, diff, risk delta, owners, notices."""

    draft: ChangeRequest
    errors: list[dict[str, Any]]
    dry_run: dict[str, Any] | None
    # None while the text does not parse into an object.
    diff: ObjectDiff | None
    owners: list[Owner]
    ca_injected: bool
    carried_ca_bundles: list[str] = field(default_factory=list)
    # None when the risks cannot be judged yet (the draft does not validate).
    risks_added: list[Finding] | None = None
    risks_removed: list[Finding] | None = None
    # None when coverage cannot be judged yet (as for risks).
    coverage_changes: list[CoverageChange] | None = None
    # The live object changed since the draft was made (as last synced).
    live_resource_version: str = ""

    @property
    def is_delete(self) -> bool:
        return self.draft.action == ChangeRequest.Action.DELETE

    @property
    def stale(self) -> bool:
        base = self.draft.base_resource_version
        return bool(base) and self.live_resource_version != base

    @property
    def dry_run_current(self) -> bool:
        """The last dry run judged the text as it is now."""
        if not self.dry_run:
            return False
        digest = sha256(self.draft.proposed_text.encode("utf-8")).hexdigest()
        return self.dry_run.get("text_sha256") == digest


def draft_preview_build(*, draft: ChangeRequest, now: datetime) -> DraftPreview:
    """The preview of ``draft`` against its base (the live object it was made
    from); a create compares against nothing, a delete against nothing left."""
    base = draft.base_object
    proposed = draft.proposed_object
    is_delete = draft.action == ChangeRequest.Action.DELETE
    injected = ca_bundle_injected(base)
    parses = is_delete or isinstance(proposed, dict)
    diff = object_diff(base, None if is_delete else proposed) if parses else None
    added = removed = coverage = None
    if parses and not draft.validation_errors:
        after_obj = None if is_delete else proposed
        before = check_configuration(base, now=now) if base else []
        after = check_configuration(after_obj, now=now) if after_obj else []
        added, removed = risk_delta(before, after)
        index = cluster_index(draft.cluster)
        coverage = coverage_delta(_coverage(index, base), _coverage(index, after_obj))
    return DraftPreview(
        draft=draft,
        errors=list(draft.validation_errors or []),
        dry_run=draft.dry_run_result,
        diff=diff,
        owners=detect_owners(base) if base else [],
        ca_injected=injected,
        carried_ca_bundles=_carried(draft) if injected and not is_delete else [],
        risks_added=added,
        risks_removed=removed,
        coverage_changes=coverage,
        live_resource_version=_live_resource_version(draft),
    )


def _coverage(index: ClusterIndex, obj: dict[str, Any] | None) -> list[Coverage]:
    """What each webhook of ``obj`` intercepts on the draft's cluster."""
    if not obj:
        return []
    prepared = prepare_configurations([obj])
    results = cluster_coverage(
        prepared, resources=index.table, namespaces=index.namespaces
    )
    return [coverage for _, coverage in results]


def _carried(draft: ChangeRequest) -> list[str]:
    """Webhooks whose injected caBundle the text leaves out (and the save kept)."""
    try:
        objects = load_documents(draft.proposed_text)
    except ManifestError:
        return []
    if len(objects) != 1:
        return []
    return carry_ca_bundles(objects[0], draft.base_object or {})[1]


def _live_resource_version(draft: ChangeRequest) -> str:
    if not draft.base_resource_version:
        return ""
    live = (
        WebhookConfiguration.objects.filter(
            cluster_id=draft.cluster_id,
            kind=draft.kind,
            name=draft.name,
            deleted_at__isnull=True,
        )
        .values_list("resource_version", flat=True)
        .first()
    )
    return live or ""


@dataclass(frozen=True)
class DraftFormSource:
    """What the Form tab edits: the object of the draft's text, or why the
    form cannot show it (the YAML does not parse, or has shapes it cannot)."""

    obj: dict[str, Any] | None
    kind: str
    problem: str = ""
    # The text has comments: a change made in the form rewrites it without them.
    has_comments: bool = False


def draft_form_errors(*, preview: DraftPreview) -> list[dict[str, Any]]:
    """The problems the form places on its fields: the local validation
    errors, and the causes of a failed dry run of this very text that local
    validation did not already report."""
    errors = list(preview.errors)
    dry_run = preview.dry_run or {}
    if preview.dry_run_current and not dry_run.get("ok"):
        seen = {(row["field"], row["message"]) for row in errors}
        errors += [
            {**row, "message": f"API server (dry run): {row['message']}"}
            for row in dry_run.get("errors") or []
            if (row["field"], row["message"]) not in seen
        ]
    return errors


_COMMENT_LINE = re.compile(r"^\s*#", flags=re.MULTILINE)


def draft_form_source(*, draft: ChangeRequest) -> DraftFormSource:
    """The object the form shows and merges onto: the text as typed (not the
    proposed object, which also holds injected caBundles carried over), so a
    form edit changes the text only where the form changed."""
    if draft.action == ChangeRequest.Action.DELETE:
        return DraftFormSource(None, draft.kind, "A delete draft has no form.")
    try:
        objects = load_documents(draft.proposed_text, source="draft")
    except ManifestError as exc:
        problem = (
            f"The YAML does not parse ({exc}), so the form cannot show it: "
            "fix it in YAML mode first."
        )
        return DraftFormSource(None, draft.kind, problem)
    if len(objects) != 1:
        problem = (
            f"The YAML holds {len(objects)} objects; a draft edits exactly one: "
            "fix it in YAML mode first."
        )
        return DraftFormSource(None, draft.kind, problem)
    obj = objects[0]
    blockers = form_blockers(obj)
    if blockers:
        problem = (
            "The form cannot show these fields of the YAML without losing them: "
            f"{', '.join(blockers)}. Edit them in YAML mode."
        )
        return DraftFormSource(None, draft.kind, problem)
    kind = obj.get("kind") if obj.get("kind") in KINDS else draft.kind
    has_comments = bool(_COMMENT_LINE.search(draft.proposed_text))
    return DraftFormSource(obj, str(kind), has_comments=has_comments)
