"""JSON merge patches (RFC 7386 / 7396) applied to configurations.

A script changing one field of a live configuration sends only that field:
``{"webhooks": ...}`` replaces the list, ``{"metadata": {"labels": {"a": null}}}``
removes one label. Objects merge key by key, ``null`` deletes, everything
else (lists included) replaces. The algorithm is the ``json-merge-patch``
package's; this module keeps the inputs untouched (the package merges in
place). What the result may be (same kind and name for an update) is the
draft validation's business, as for any other content.
"""

from __future__ import annotations

import copy
from typing import Any

import json_merge_patch


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with ``patch`` applied (RFC 7396); neither is modified."""
    return json_merge_patch.merge(copy.deepcopy(target), copy.deepcopy(patch))
