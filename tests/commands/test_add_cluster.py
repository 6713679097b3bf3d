"""``add_cluster``: every way to register, and clear errors."""

import pytest
import yaml
from django.core.management import CommandError, call_command

from tests import factories
from webhooks_ui.models import Cluster
from webhooks_ui.services.clusters import cluster_access

pytestmark = pytest.mark.django_db


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox("cmd")
    yield sb
    sb.stop()


def test_kubeconfig_with_context_and_test(sandbox, tmp_path, capsys):
    document = sandbox.kubeconfig()
    document["contexts"].append(
        {"name": "other", "context": {"cluster": "cmd", "user": "cmd-admin"}}
    )
    document["current-context"] = "missing-on-purpose"
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document))
    call_command(
        "add_cluster",
        "--name",
        "dev",
        "--kubeconfig",
        str(path),
        "--context",
        "other",
        "--environment",
        "dev",
        "--test",
    )
    out = capsys.readouterr().out
    assert "Registered cluster dev" in out
    assert "Connection test: reachable, Kubernetes v1." in out
    cluster = Cluster.objects.get(name="dev")
    assert cluster.auth_method == "kubeconfig" and cluster.environment == "dev"
    assert sandbox.token not in out


def test_server_token_and_ca_files(sandbox, tmp_path):
    (tmp_path / "token").write_text(sandbox.token + "\n")
    (tmp_path / "ca.crt").write_text(sandbox.ca_pem)
    call_command(
        "add_cluster",
        "--name",
        "tok",
        "--server",
        sandbox.url,
        "--token-file",
        str(tmp_path / "token"),
        "--ca-file",
        str(tmp_path / "ca.crt"),
        "--test",
    )
    access = cluster_access(cluster=Cluster.objects.get(name="tok"))
    assert access.token == sandbox.token and access.ca_pem == sandbox.ca_pem


def test_readonly_token_passes_the_read_test(sandbox, tmp_path, capsys):
    path = sandbox.write_kubeconfig(tmp_path / "viewer", readonly=True)
    call_command("add_cluster", "--name", "viewer", "--kubeconfig", str(path), "--test")
    assert "can list MutatingWebhookConfiguration: yes" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kubeconfig", "/nonexistent/config"], "Cannot read the kubeconfig"),
        (["--server", "https://x"], "--server needs --token-file"),
        (["--in-cluster"], "Not running in a pod"),
        (["--in-cluster", "--context", "x"], "--context only applies"),
    ],
)
def test_clear_errors(args, message, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(CommandError, match=message):
        call_command("add_cluster", "--name", "bad", *args)
    assert not Cluster.objects.exists()


def test_insecure_refused_unless_allowed(sandbox, tmp_path):
    document = sandbox.kubeconfig()
    cluster = document["clusters"][0]["cluster"]
    del cluster["certificate-authority-data"]
    cluster["insecure-skip-tls-verify"] = True
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(CommandError, match="--allow-insecure"):
        call_command("add_cluster", "--name", "unsafe", "--kubeconfig", str(path))
    call_command(
        "add_cluster",
        "--name",
        "unsafe",
        "--kubeconfig",
        str(path),
        "--allow-insecure",
        "--test",
    )
    assert Cluster.objects.get(name="unsafe").insecure_skip_tls_verify


def test_exec_plugin_refused(tmp_path):
    document = factories.kubeconfig(
        user={"exec": {"command": "gke-gcloud-auth-plugin"}}
    )
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(CommandError, match="exec plugin"):
        call_command("add_cluster", "--name", "gke", "--kubeconfig", str(path))


def test_duplicate_name_needs_replace(sandbox, tmp_path):
    path = sandbox.write_kubeconfig(tmp_path / "config")
    call_command("add_cluster", "--name", "dev", "--kubeconfig", str(path))
    with pytest.raises(CommandError, match="already registered"):
        call_command("add_cluster", "--name", "dev", "--kubeconfig", str(path))
    call_command("add_cluster", "--name", "dev", "--kubeconfig", str(path), "--replace")


def test_failed_connection_test_is_an_error(tmp_path):
    (tmp_path / "token").write_text("t")
    with pytest.raises(
        CommandError, match="Connection test failed.*connection refused"
    ):
        call_command(
            "add_cluster",
            "--name",
            "down",
            "--server",
            "https://127.0.0.1:1",
            "--token-file",
            str(tmp_path / "token"),
            "--test",
        )
