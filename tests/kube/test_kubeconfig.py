"""Kubeconfig resolution: contexts, CA data vs file, credentials, refusals."""

import base64

import pytest
import yaml

from tests import factories
from tests.kube.certs import self_signed
from webhooks_ui.kube.kubeconfig import (
    KubeconfigError,
    access_from_resolved,
    resolve_kubeconfig,
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def dump(document: dict) -> str:
    return yaml.safe_dump(document)


def test_current_context_is_used_by_default():
    resolved = resolve_kubeconfig(dump(factories.kubeconfig()))
    assert resolved.context == "main"
    assert resolved.access.server == "https://127.0.0.1:6443"
    assert resolved.access.token == factories.SECRET_TOKEN


def test_multiple_contexts_pick_the_named_one():
    document = factories.kubeconfig(
        contexts={
            "main": {"cluster": "main", "user": "main"},
            "other": {"cluster": "main", "user": "main", "namespace": "kube-system"},
        }
    )
    resolved = resolve_kubeconfig(dump(document), context="other")
    assert resolved.context == "other"
    assert resolved.document["current-context"] == "other"
    assert resolved.document["contexts"][0]["context"]["namespace"] == "kube-system"


def test_unknown_context_names_the_available_ones():
    with pytest.raises(KubeconfigError, match=r"'nope' is not in .*available: main"):
        resolve_kubeconfig(dump(factories.kubeconfig()), context="nope")


def test_missing_current_context_asks_for_one():
    with pytest.raises(KubeconfigError, match="no current-context.*--context"):
        resolve_kubeconfig(dump(factories.kubeconfig(current=None)))


def test_embedded_ca_data_is_decoded():
    ca, _ = self_signed()
    document = factories.kubeconfig(
        cluster_extra={"certificate-authority-data": b64(ca)}
    )
    assert resolve_kubeconfig(dump(document)).access.ca_pem == ca


def test_ca_file_is_read_relative_to_the_kubeconfig_and_embedded(tmp_path):
    ca, _ = self_signed()
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.crt").write_text(ca)
    document = factories.kubeconfig(
        cluster_extra={"certificate-authority": "certs/ca.crt"}
    )
    resolved = resolve_kubeconfig(dump(document), base_dir=tmp_path)
    assert resolved.access.ca_pem == ca
    cluster = resolved.document["clusters"][0]["cluster"]
    assert "certificate-authority" not in cluster
    assert base64.b64decode(cluster["certificate-authority-data"]).decode() == ca
    # The stored kubeconfig stands alone: the file can go.
    (tmp_path / "certs" / "ca.crt").unlink()
    assert access_from_resolved(resolved.to_yaml()).ca_pem == ca


def test_missing_ca_file_is_a_clear_error(tmp_path):
    document = factories.kubeconfig(cluster_extra={"certificate-authority": "ca.crt"})
    with pytest.raises(KubeconfigError, match="Cannot read the CA file"):
        resolve_kubeconfig(dump(document), base_dir=tmp_path)


def test_client_certificate_files_and_data(tmp_path):
    cert, key = self_signed("user")
    (tmp_path / "user.crt").write_text(cert)
    document = factories.kubeconfig(
        user={"client-certificate": "user.crt", "client-key-data": b64(key)}
    )
    access = resolve_kubeconfig(dump(document), base_dir=tmp_path).access
    assert access.client_cert_pem == cert
    assert access.client_key_pem == key
    assert access.token is None
    assert "BEGIN" not in repr(access)


def test_certificate_without_key_is_refused():
    cert, _ = self_signed("user")
    document = factories.kubeconfig(user={"client-certificate-data": b64(cert)})
    with pytest.raises(KubeconfigError, match="without its key"):
        resolve_kubeconfig(dump(document))


def test_token_file_is_read_and_embedded(tmp_path):
    (tmp_path / "token").write_text("file-token\n")
    document = factories.kubeconfig(user={"tokenFile": str(tmp_path / "token")})
    resolved = resolve_kubeconfig(dump(document))
    assert resolved.access.token == "file-token"
    assert resolved.document["users"][0]["user"] == {"token": "file-token"}


def test_insecure_skip_tls_verify_is_refused_unless_allowed():
    document = factories.kubeconfig(cluster_extra={"insecure-skip-tls-verify": True})
    with pytest.raises(KubeconfigError, match="--allow-insecure"):
        resolve_kubeconfig(dump(document))
    access = resolve_kubeconfig(dump(document), allow_insecure=True).access
    assert access.insecure_skip_tls_verify is True


def test_exec_plugin_is_refused_with_advice():
    document = factories.kubeconfig(
        user={
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "command": "aws-iam-authenticator",
            }
        }
    )
    with pytest.raises(KubeconfigError, match="exec plugin.*--token-file"):
        resolve_kubeconfig(dump(document))


def test_auth_provider_is_refused():
    document = factories.kubeconfig(user={"auth-provider": {"name": "gcp"}})
    with pytest.raises(KubeconfigError, match="auth-provider"):
        resolve_kubeconfig(dump(document))


def test_user_without_credentials_is_refused():
    document = factories.kubeconfig(user={})
    with pytest.raises(KubeconfigError, match="no token or client certificate"):
        resolve_kubeconfig(dump(document))


def test_not_yaml_is_a_clear_error():
    with pytest.raises(KubeconfigError, match="not valid YAML"):
        resolve_kubeconfig("clusters: [\n")


def test_context_pointing_at_missing_cluster():
    document = factories.kubeconfig(contexts={"main": {"cluster": "x", "user": "main"}})
    with pytest.raises(KubeconfigError, match="cluster 'x'"):
        resolve_kubeconfig(dump(document))
