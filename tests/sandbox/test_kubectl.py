"""The real kubectl against a sandbox: discovery, get, watch, create, replace, patch."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from webhooks_ui.sandbox.server import SandboxServer

from .factories import ADMISSION, VWC, validating_configuration

pytestmark = pytest.mark.kubectl

KUBECTL = shutil.which("kubectl")
RESOURCE = "validatingwebhookconfigurations"

NEW_CONFIGURATION = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: from-kubectl
webhooks:
- name: check.example.com
  clientConfig:
    service: {name: svc, namespace: default}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}
  sideEffects: None
  admissionReviewVersions: [v1]
"""


class Kubectl:
    def __init__(self, sb: SandboxServer, home: Path) -> None:
        assert KUBECTL is not None
        self.kubeconfig = sb.write_kubeconfig(home / "kubeconfig")
        self.env = os.environ | {"KUBECONFIG": str(self.kubeconfig), "HOME": str(home)}
        self.base = [
            KUBECTL,
            "--request-timeout=10s",
            f"--cache-dir={home / 'cache'}",
        ]

    def __call__(
        self, *args: str, check: bool = True, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [*self.base, *args],
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {result.stderr}")
        return result

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*self.base, *args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


@pytest.fixture
def kubectl(sandbox: SandboxServer, tmp_path: Path) -> Kubectl:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed (make system-deps installs it)")
    return Kubectl(sandbox, tmp_path)


def test_version_and_api_resources(kubectl: Kubectl) -> None:
    version = kubectl("version", "-o", "json").stdout
    assert '"gitVersion": "v1.33.' in version
    resources = kubectl("api-resources", "--api-group=admissionregistration.k8s.io")
    assert RESOURCE in resources.stdout


def test_get_table_yaml_and_chunks(kubectl: Kubectl) -> None:
    table = kubectl("get", RESOURCE).stdout.splitlines()
    assert table[0].split() == ["NAME", "WEBHOOKS", "AGE"]
    assert [line.split()[0] for line in table[1:]] == ["alpha", "bravo", "charlie"]

    yaml_out = kubectl("get", RESOURCE, "alpha", "-o", "yaml").stdout
    assert "kind: ValidatingWebhookConfiguration" in yaml_out
    assert "failurePolicy: Fail" in yaml_out  # the stored object is defaulted

    chunked = kubectl("get", RESOURCE, "--chunk-size=2", "-v=6")
    assert chunked.stderr.count("limit=2") >= 2  # really paginated
    assert [line.split()[0] for line in chunked.stdout.splitlines()[1:]] == [
        "alpha",
        "bravo",
        "charlie",
    ]


def _lines(process: subprocess.Popen[str]) -> Iterator[str]:
    """Lines from a process, each waited for at most 10 seconds."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    while True:
        line = lines.get(timeout=10)
        if line is None:
            return
        yield line


def test_get_watch_sees_out_of_band_change(
    kubectl: Kubectl, sandbox: SandboxServer
) -> None:
    process = kubectl.popen("get", RESOURCE, "-w", "--output-watch-events")
    try:
        lines = _lines(process)
        seen = ""
        while "charlie" not in seen:
            seen += next(lines)
        sandbox.store.create(validating_configuration("delta"))
        line = next(lines)
        while "delta" not in line:
            line = next(lines)
        assert line.split()[:2] == ["ADDED", "delta"]
    finally:
        process.kill()
        process.wait(timeout=10)
        assert process.stdout is not None
        process.stdout.close()


def test_create_replace_and_conflict(kubectl: Kubectl, tmp_path: Path) -> None:
    manifest = tmp_path / "new.yaml"
    manifest.write_text(NEW_CONFIGURATION)
    created = kubectl("create", "-f", str(manifest))
    assert "from-kubectl created" in created.stdout
    again = kubectl("create", "-f", str(manifest), check=False)
    assert again.returncode != 0 and "AlreadyExists" in again.stderr

    current = kubectl("get", RESOURCE, "from-kubectl", "-o", "yaml").stdout
    edited = tmp_path / "edited.yaml"
    edited.write_text(current.replace("timeoutSeconds: 10", "timeoutSeconds: 7"))
    assert "replaced" in kubectl("replace", "-f", str(edited)).stdout
    stale = kubectl("replace", "-f", str(edited), check=False)
    assert stale.returncode != 0
    assert "Error from server (Conflict)" in stale.stderr
    assert "the object has been modified" in stale.stderr


def test_strict_field_validation_and_422(kubectl: Kubectl, tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(NEW_CONFIGURATION.replace("sideEffects: None", "sideEffect: x"))
    result = kubectl("create", "-f", str(unknown), check=False)
    assert 'strict decoding error: unknown field "webhooks[0].sideEffect"' in (
        result.stderr
    )
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text(
        NEW_CONFIGURATION.replace("sideEffects: None", "sideEffects: Some")
    )
    result = kubectl("create", "-f", str(invalid), check=False)
    # kubectl prints a 422 from its causes, as for a real cluster.
    assert 'ValidatingWebhookConfiguration "from-kubectl" is invalid' in result.stderr
    assert "webhooks[0].sideEffects: Unsupported value" in result.stderr


def test_patch_and_delete(kubectl: Kubectl, sandbox: SandboxServer) -> None:
    kubectl(
        "patch",
        RESOURCE,
        "alpha",
        "--type=merge",
        "-p",
        '{"metadata":{"labels":{"x":"y"}}}',
    )
    assert sandbox.store.get(ADMISSION, VWC, "alpha")["metadata"]["labels"]["x"] == "y"
    kubectl(
        "patch",
        RESOURCE,
        "alpha",
        "-p",
        '{"webhooks":[{"name":"check.example.com","timeoutSeconds":3}]}',
    )
    stored = sandbox.store.get(ADMISSION, VWC, "alpha")
    assert stored["webhooks"][0]["timeoutSeconds"] == 3
    assert stored["metadata"]["generation"] == 2
    assert '"alpha" deleted' in kubectl("delete", RESOURCE, "alpha").stdout
    assert kubectl("get", RESOURCE, "alpha", check=False).returncode != 0


def test_server_dry_run_persists_nothing(
    kubectl: Kubectl, sandbox: SandboxServer, tmp_path: Path
) -> None:
    rv = sandbox.store.resource_version
    manifest = tmp_path / "new.yaml"
    manifest.write_text(NEW_CONFIGURATION)
    created = kubectl("create", "-f", str(manifest), "--dry-run=server")
    assert "(server dry run)" in created.stdout
    current = kubectl("get", RESOURCE, "alpha", "-o", "yaml").stdout
    edited = tmp_path / "edited.yaml"
    edited.write_text(current.replace("timeoutSeconds: 10", "timeoutSeconds: 7"))
    replaced = kubectl("replace", "-f", str(edited), "--dry-run=server", "-o", "yaml")
    assert "timeoutSeconds: 7" in replaced.stdout
    assert sandbox.store.resource_version == rv
    assert kubectl("get", RESOURCE, "from-kubectl", check=False).returncode != 0
    stored = sandbox.store.get(ADMISSION, VWC, "alpha")
    assert stored["webhooks"][0]["timeoutSeconds"] == 10


def test_readonly_kubeconfig_is_forbidden_to_write(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed (make system-deps installs it)")
    path = sandbox.write_kubeconfig(tmp_path / "ro", readonly=True)
    env = os.environ | {"KUBECONFIG": str(path), "HOME": str(tmp_path)}
    started = time.monotonic()
    result = subprocess.run(
        [KUBECTL, "--request-timeout=10s", "delete", RESOURCE, "alpha"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert time.monotonic() - started < 30
    assert "Error from server (Forbidden)" in result.stderr
