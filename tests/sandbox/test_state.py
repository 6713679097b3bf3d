"""state_file: objects, CA and tokens survive a restart; seeds load only once."""

from __future__ import annotations

import stat
from pathlib import Path

from webhooks_ui.sandbox.seed_loader import resolve_seed
from webhooks_ui.sandbox.server import SandboxServer

from .factories import ADMISSION, VWC, VWC_PATH, validating_configuration
from .raw_http import call
from .watching import WatchStream


def test_state_survives_restart(tmp_path: Path) -> None:
    state_file = tmp_path / "dev.json"
    with SandboxServer(
        name="dev", seed_dir=resolve_seed("dev"), state_file=state_file
    ) as first:
        token, ca = first.token, first.ca_pem
        created = call(first, "POST", VWC_PATH, validating_configuration("mine"))
        assert created.status == 201
        deleted = call(first, "DELETE", f"{VWC_PATH}/platform-guard")
        assert deleted.status == 200
        rv = first.store.resource_version
        names = [o["metadata"]["name"] for o in first.store.list(ADMISSION, VWC)]
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600

    # A different seed is ignored: the state file wins.
    with SandboxServer(name="dev", seed_dir=None, state_file=state_file) as second:
        assert (second.token, second.ca_pem) == (token, ca)
        assert second.store.resource_version == rv
        assert [
            o["metadata"]["name"] for o in second.store.list(ADMISSION, VWC)
        ] == names
        mine = call(second, "GET", f"{VWC_PATH}/mine").body
        assert mine["metadata"]["uid"] == created.body["metadata"]["uid"]
        again = call(second, "POST", VWC_PATH, validating_configuration("later"))
        assert int(again.body["metadata"]["resourceVersion"]) == rv + 1
        # Watch history did not survive: older resourceVersions are gone.
        stream = WatchStream(second, f"{VWC_PATH}?watch=1&resourceVersion={rv - 1}")
        try:
            event = stream.next_event()
        finally:
            stream.close()
        assert event is not None and event["object"]["code"] == 410


def test_kubeconfig_files(tmp_path: Path) -> None:
    with SandboxServer(name="kc") as sb:
        path = sb.write_kubeconfig(tmp_path / "kc.yaml")
        readonly = sb.kubeconfig(readonly=True)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert sb.token in path.read_text()
        assert readonly["users"][0]["user"]["token"] == sb.readonly_token
        assert readonly["current-context"] == "kc-readonly"
        assert sb.kubeconfig(context="other")["current-context"] == "other"
        assert sb.url.startswith("https://127.0.0.1:")
