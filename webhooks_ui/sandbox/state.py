"""Persisting a sandbox (objects, CA, server key, tokens) to one JSON file.

``make run`` restarts the sandbox often; keeping the same objects, resourceVersion,
CA and tokens means the dashboard's stored kubeconfigs and history stay valid.
The file holds secrets (tokens, keys), so it is written owner-only.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .tls import ServingChain

FORMAT_VERSION = 1


@dataclass
class SandboxState:
    name: str
    chain: ServingChain
    token: str
    readonly_token: str
    resource_version: int
    objects: list[dict[str, Any]]


def save(path: Path, state: SandboxState) -> None:
    """Write atomically (temp file + rename) so a crash never leaves half a file."""
    payload = {
        "formatVersion": FORMAT_VERSION,
        "name": state.name,
        "chain": asdict(state.chain),
        "token": state.token,
        "readonlyToken": state.readonly_token,
        "resourceVersion": state.resource_version,
        "objects": state.objects,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(handle, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(payload, stream, indent=1, sort_keys=False)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def load(path: Path) -> SandboxState:
    payload = json.loads(path.read_text(encoding="utf-8"))
    if payload.get("formatVersion") != FORMAT_VERSION:
        raise ValueError(f"{path}: unsupported sandbox state format")
    return SandboxState(
        name=payload["name"],
        chain=ServingChain(**payload["chain"]),
        token=payload["token"],
        readonly_token=payload["readonlyToken"],
        resource_version=int(payload["resourceVersion"]),
        objects=payload["objects"],
    )
