"""Change requests after the draft: propose, review, apply, rebase, restore, promote.

Every transition happens here, inside a transaction that locks the change
request's row, re-checks the actor's role on the cluster and the state, and
writes an audit event. Nothing else changes a change request's state.
"""

from webhooks_ui.services.changes.apply import (
    ApplyOutcome,
    apply_blockers,
    change_apply,
    changes_mark_stale,
)
from webhooks_ui.services.changes.common import (
    APPLICABLE,
    REOPENABLE,
    REVIEWABLE,
    WITHDRAWABLE,
    ChangeError,
    active_approvals,
)
from webhooks_ui.services.changes.review import (
    awaiting_review,
    change_edit,
    change_propose,
    change_reopen,
    change_review,
    change_update_details,
    change_withdraw,
    my_open_changes,
    review_blockers,
)
from webhooks_ui.services.changes.rework import (
    Promotion,
    change_promote,
    change_rebase,
    change_restore,
)

__all__ = [
    "APPLICABLE",
    "REOPENABLE",
    "REVIEWABLE",
    "WITHDRAWABLE",
    "ApplyOutcome",
    "ChangeError",
    "Promotion",
    "active_approvals",
    "apply_blockers",
    "awaiting_review",
    "change_apply",
    "change_edit",
    "change_promote",
    "change_propose",
    "change_rebase",
    "change_reopen",
    "change_restore",
    "change_review",
    "change_update_details",
    "change_withdraw",
    "changes_mark_stale",
    "my_open_changes",
    "review_blockers",
]
