"""Changes made from other changes: rebase a stale one, restore a revision, promote."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from webhooks_ui.domain.drafting import carry_ca_bundles, clone_object
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.domain.merge import three_way_merge
from webhooks_ui.domain.normalize import strip_server_fields
from webhooks_ui.domain.ownership import ca_bundle_injected
from webhooks_ui.models import (
    ChangeRequest,
    Cluster,
    ConfigurationRevision,
    WebhookConfiguration,
)
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.services.audit import Action as Audit
from webhooks_ui.services.audit import audit_record
from webhooks_ui.services.changes.common import (
    REVIEWABLE,
    ActionKind,
    ChangeError,
    State,
    bump,
    dismiss_approvals,
    lock_change,
    reload_change,
    require_author,
    require_role,
    require_state,
    require_visible,
)
from webhooks_ui.services.changes.review import change_propose


def change_rebase(
    *, change: ChangeRequest, user: User, manual: bool = False
) -> ChangeRequest:
    """Replay a stale proposal onto the live object it missed.

    One click when the cluster's changes and the proposal's touch different
    fields: the merged proposal is validated and dry-run and goes back to
    review (with fresh approvals needed). With ``manual`` (or conflicts the
    author resolves), the draft is re-based on the live object with the
    author's text kept, to edit and propose again.
    """
    with transaction.atomic():
        locked = lock_change(change)
        require_author(locked, user)
        require_role(user, locked.cluster, Role.EDITOR, "Rebasing")
        require_state(locked, (State.STALE,), "rebased")
        live = locked.live_object
        if live is None and locked.action != ActionKind.CREATE:
            raise ChangeError(
                "The object is no longer in the cluster: withdraw this change "
                "and start a new one.",
                code="conflict",
            )
        if locked.action == ActionKind.CREATE:
            raise ChangeError(
                "A configuration with this name now exists in the cluster: "
                "withdraw this change, or edit the existing one.",
                code="conflict",
            )
        text = locked.proposed_text
        summary = "re-based the draft on the live object (manual resolution)"
        if locked.action == ActionKind.UPDATE and not manual:
            result = three_way_merge(
                locked.base_object or {}, live, locked.proposed_object or {}
            )
            if not result.clean:
                raise ChangeError(
                    "The cluster's changes and this proposal touch the same "
                    f"fields ({', '.join(result.conflicts)}): resolve them by hand.",
                    code="conflict",
                )
            text = dump_yaml(result.merged)
            summary = "rebased the proposal onto the live object"
        if locked.action == ActionKind.DELETE:
            summary = "re-based the delete on the live object"
        dismissed = dismiss_approvals(locked, "rebased onto a newer live object")
        locked.base_object = live
        locked.base_resource_version = locked.live_resource_version
        locked.live_object = None
        locked.live_resource_version = ""
        locked.state = State.DRAFT
        locked.dry_run_result = None
        bump(locked)
        audit_record(
            action=Audit.CHANGE_REBASED,
            actor=user,
            change=locked,
            summary=summary
            + (f"; {dismissed} approval(s) dismissed" if dismissed else ""),
        )
    if locked.action != ActionKind.DELETE:
        drafts_service.draft_save(draft=locked, user=user, text=text)
    if manual:
        return reload_change(locked)
    try:
        return change_propose(change=reload_change(locked), user=user)
    except ChangeError:
        # Kept as a draft, with the merge in place, for the author to finish.
        return reload_change(locked)


def change_restore(*, user: User, revision: ConfigurationRevision) -> ChangeRequest:
    """A draft that puts a configuration back the way ``revision`` recorded it.

    It goes through the same review as any change. An injected caBundle keeps
    its live value: restoring an old certificate would break the webhook.
    """
    configuration = revision.configuration
    cluster = configuration.cluster
    with transaction.atomic():
        require_role(user, cluster, Role.EDITOR, "Restoring")
        if revision.change == ConfigurationRevision.Change.DELETED:
            raise ChangeError(
                "This revision records the deletion: restore the revision before it.",
                code="not_valid",
            )
        wanted = strip_server_fields(revision.raw)
        live_exists = not configuration.is_deleted
        if live_exists and ca_bundle_injected(configuration.raw):
            wanted = _with_live_ca_bundles(wanted, configuration.raw)
        draft = ChangeRequest(
            author=user,
            cluster=cluster,
            kind=configuration.kind,
            name=configuration.name,
            action=ActionKind.UPDATE if live_exists else ActionKind.CREATE,
            restores_revision=revision,
            title=f"Restore {configuration.name} to revision {revision.number}",
            description=(
                f"Restores the content recorded in revision {revision.number} "
                f"({revision.observed_at:%Y-%m-%d %H:%M} UTC)."
            ),
        )
        if live_exists:
            draft.base_object = configuration.raw
            draft.base_resource_version = configuration.resource_version
        draft.save()
        audit_record(
            action=Audit.CHANGE_RESTORE_OPENED,
            actor=user,
            change=draft,
            summary=f"opened a restore of revision {revision.number}",
            detail={"revision": revision.number},
        )
    drafts_service.draft_save(draft=draft, user=user, text=dump_yaml(wanted))
    return reload_change(draft)


@dataclass(frozen=True)
class Promotion:
    """One target cluster of a promote: the new change request, or why none."""

    cluster: Cluster
    change: ChangeRequest | None
    message: str


def change_promote(
    *, change: ChangeRequest, user: User, targets: Iterable[Cluster]
) -> list[Promotion]:
    """Open linked change requests applying the same change to other clusters.

    An update is replayed onto each target's live object (three-way merge);
    where the target differs on the same fields, the full proposed object is
    used and the request says so. Each is proposed when it validates and its
    cluster's dry run accepts it, else left as a draft; each is reviewed under
    its own cluster's policy.
    """
    source = reload_change(change)
    require_visible(user, source.cluster)
    if source.state not in (*REVIEWABLE, State.APPLIED):
        raise ChangeError(
            "Only a proposed, approved or applied change can be promoted.",
        )
    results = []
    for target in targets:
        if target.pk == source.cluster_id:
            continue
        results.append(_promote_one(source, user, target))
    return results


def _promote_one(source: ChangeRequest, user: User, target: Cluster) -> Promotion:
    if not has_role(user, target, Role.EDITOR):
        return Promotion(target, None, f"You need the editor role on {target.name}.")
    live_row = WebhookConfiguration.objects.filter(
        cluster=target, kind=source.kind, name=source.name, deleted_at__isnull=True
    ).first()
    note = ""
    if source.action == ActionKind.DELETE:
        if live_row is None:
            return Promotion(target, None, f"{source.name} is not on {target.name}.")
        action, proposed = ActionKind.DELETE, None
    elif live_row is None:
        action = ActionKind.CREATE
        proposed = clone_object(
            source.proposed_object or {},
            name=source.name,
            drop_ca_bundles=ca_bundle_injected(source.proposed_object or {}),
        )
    else:
        action = ActionKind.UPDATE
        proposed, note = _replayed(source, live_row.raw)
    with transaction.atomic():
        promoted = ChangeRequest.objects.create(
            author=user,
            cluster=target,
            kind=source.kind,
            name=source.name,
            action=action,
            promoted_from=source,
            base_object=live_row.raw if live_row else None,
            base_resource_version=live_row.resource_version if live_row else "",
            title=_promoted_title(source),
            description=(source.description + ("\n\n" + note if note else "")).strip(),
        )
        audit_record(
            action=Audit.CHANGE_PROMOTED,
            actor=user,
            change=promoted,
            summary=f"promoted change {source.pk} from "
            f"{source.cluster.name} to {target.name}",
            detail={"source": source.pk, "note": note},
        )
    if proposed is not None:
        drafts_service.draft_save(draft=promoted, user=user, text=dump_yaml(proposed))
    try:
        promoted = change_propose(change=reload_change(promoted), user=user)
        message = f"Proposed on {target.name} for review."
    except ChangeError as exc:
        promoted = reload_change(promoted)
        message = f"Kept as a draft on {target.name}: {exc}"
    if note:
        message += f" {note}"
    return Promotion(target, promoted, message)


def _promoted_title(source: ChangeRequest) -> str:
    return f"{source.title or source.name} (from {source.cluster.name})"[:200]


def _replayed(source: ChangeRequest, target_live: dict[str, Any]) -> tuple[dict, str]:
    proposed = source.proposed_object or {}
    base = source.base_object
    if base is not None:
        result = three_way_merge(base, target_live, proposed)
        if result.clean and result.merged is not None:
            return result.merged, ""
        note = (
            "The target differs from the source on the fields this change touches "
            f"({', '.join(result.conflicts)}): it proposes the source's whole object."
        )
    else:
        note = "The source created this configuration: it proposes the whole object."
    whole = strip_server_fields(proposed)
    if ca_bundle_injected(target_live):
        whole = _with_live_ca_bundles(whole, target_live)
    return whole, note


def _with_live_ca_bundles(
    wanted: dict[str, Any], live: dict[str, Any]
) -> dict[str, Any]:
    # Drop the wanted bundles first, then carry the live ones in by name.
    stripped = clone_object(
        wanted, name=wanted["metadata"]["name"], drop_ca_bundles=True
    )
    if "ownerReferences" in (wanted.get("metadata") or {}):
        stripped["metadata"]["ownerReferences"] = wanted["metadata"]["ownerReferences"]
    merged, _ = carry_ca_bundles(stripped, live)
    return merged
