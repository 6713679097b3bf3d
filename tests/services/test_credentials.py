"""Credentials are encrypted at rest and never rendered or logged."""

import logging

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth import get_user_model
from django.db import connection

from tests import factories
from webhooks_ui.models import Cluster
from webhooks_ui.services.clusters import cluster_access, cluster_test_connection
from webhooks_ui.services.credentials import (
    CredentialsError,
    cluster_credentials,
    credentials_reencrypt,
)
from webhooks_ui.services.sync import cluster_sync

TOKEN = factories.SECRET_TOKEN


@pytest.mark.django_db
def test_only_ciphertext_reaches_the_database():
    cluster = factories.token_cluster()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM webhooks_ui_cluster WHERE id = %s", [cluster.pk])
        row = cursor.fetchone()
    assert TOKEN not in repr(row)
    assert cluster_credentials(cluster=cluster)["token"] == TOKEN
    assert TOKEN not in repr(cluster) and TOKEN not in str(cluster)
    assert TOKEN not in repr(cluster_access(cluster=cluster))


@pytest.mark.django_db
def test_first_key_encrypts_and_all_keys_decrypt(settings):
    cluster = factories.token_cluster()
    old_key = settings.CREDENTIALS_KEYS[0]
    settings.CREDENTIALS_KEYS = [Fernet.generate_key().decode(), old_key]
    assert cluster_credentials(cluster=Cluster.objects.get())["token"] == TOKEN
    assert credentials_reencrypt() == 1
    settings.CREDENTIALS_KEYS = settings.CREDENTIALS_KEYS[:1]
    assert cluster_credentials(cluster=Cluster.objects.get())["token"] == TOKEN
    settings.CREDENTIALS_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(CredentialsError, match="cannot be decrypted"):
        cluster_credentials(cluster=cluster)


@pytest.mark.django_db
def test_token_never_appears_in_logs_of_a_failing_sync(caplog):
    cluster = factories.token_cluster(server="https://127.0.0.1:1")
    with caplog.at_level(logging.DEBUG):
        run = cluster_sync(cluster=cluster)
        report = cluster_test_connection(cluster=cluster)
    assert run.status == "failed"
    assert "connection refused" in run.error
    assert not report.ok
    assert caplog.text, "expected the failure to be logged"
    assert TOKEN not in caplog.text
    assert TOKEN not in run.error and TOKEN not in report.error


@pytest.mark.django_db
def test_admin_never_renders_credentials(client):
    cluster = factories.token_cluster()
    admin = get_user_model().objects.create_superuser("root", "", "pw-123456789")
    client.force_login(admin)
    pages = [
        "/admin/webhooks_ui/cluster/",
        f"/admin/webhooks_ui/cluster/{cluster.pk}/change/",
        "/admin/webhooks_ui/cluster/add/",
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        body = response.content.decode()
        assert TOKEN not in body
        assert cluster.credentials_encrypted not in body
        assert "credentials_encrypted" not in body
