"""A kubernetes ``ApiClient`` per cluster, built from stored access only.

Nothing here reads or writes the client's global default configuration or
``~/.kube``. Every request carries a timeout and answers raw JSON: we store
objects exactly as served, and skipping model deserialisation is much faster.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterable
from typing import Any

import urllib3
from django.conf import settings
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.exceptions import ApiException

from webhooks_ui.kube import errors
from webhooks_ui.kube.access import ClusterAccess

Query = Iterable[tuple[str, Any]]
USER_AGENT = "webhook-dashboard/0.1"


class KubeClient:
    """One cluster's connection pool. Use as a context manager, or ``close()``."""

    def __init__(
        self,
        access: ClusterAccess,
        *,
        name: str = "",
        timeout: float | None = None,
    ) -> None:
        self.server = access.server.rstrip("/")
        self.where = f"Cluster {name!r} ({errors.safe_url(self.server)})"
        self.timeout = float(timeout or settings.KUBE_REQUEST_TIMEOUT)
        self._tempdir: str | None = None
        config = Configuration(host=self.server)
        config.verify_ssl = not access.insecure_skip_tls_verify
        config.ca_cert_data = access.ca_pem or None
        config.tls_server_name = access.tls_server_name or None
        # Retries are ours to decide (sync reruns, watch backs off); urllib3's
        # default would multiply every timeout by four.
        config.retries = False
        config.connection_pool_maxsize = 4
        if access.token:
            config.api_key = {"BearerToken": access.token}
            config.api_key_prefix = {"BearerToken": "Bearer"}
        if access.client_cert_pem and access.client_key_pem:
            # urllib3 loads the pair from paths on each new connection: keep
            # them in a private directory for this client's lifetime only.
            self._tempdir = tempfile.mkdtemp(prefix="kube-client-")
            config.cert_file = _private_file(
                self._tempdir, "client.crt", access.client_cert_pem
            )
            config.key_file = _private_file(
                self._tempdir, "client.key", access.client_key_pem
            )
        self._finalizer = weakref.finalize(self, _remove, self._tempdir)
        self.api = ApiClient(configuration=config)
        self.api.user_agent = USER_AGENT

    def __repr__(self) -> str:
        return f"<KubeClient {errors.safe_url(self.server)}>"

    def __enter__(self) -> KubeClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.api.close()
        self._finalizer()

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str | None = None,
        accept: str = "application/json",
    ) -> dict[str, Any]:
        """One API call answering a JSON object; errors become ``KubeError``."""
        response = self._send(
            method, path, query=query, body=body, ctype=content_type, accept=accept
        )
        try:
            data = response.data
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise errors.from_transport_error(
                exc, where=self.where, timeout=self.timeout
            ) from None
        finally:
            response.release_conn()
        return self._decode(data, f"{method} {path}")

    def stream(
        self, path: str, *, query: Query = (), read_timeout: float
    ) -> urllib3.BaseHTTPResponse:
        """Open a streaming GET (watch); the caller reads lines and closes it."""
        return self._send(
            "GET", path, query=query, timeout=(self.timeout, read_timeout)
        )

    def _send(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        ctype: str | None = None,
        accept: str = "application/json",
        timeout: float | tuple[float, float] | None = None,
    ) -> urllib3.BaseHTTPResponse:
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = ctype or "application/json"
        request = self.api.param_serialize(
            method,
            path,
            query_params=list(query) or None,
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            rest_response = self.api.call_api(
                *request, _request_timeout=timeout or self.timeout
            )
        except ApiException as exc:
            raise errors.from_api_exception(exc, where=self.where) from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise errors.from_transport_error(
                exc, where=self.where, timeout=self.timeout
            ) from None
        response = rest_response.response
        if not 200 <= response.status <= 299:
            try:
                body_bytes = response.data
            except (urllib3.exceptions.HTTPError, OSError):
                body_bytes = b""
            finally:
                response.release_conn()
            raise errors.from_status(response.status, body_bytes, where=self.where)
        return response

    def _decode(self, data: bytes, what: str) -> dict[str, Any]:
        try:
            decoded = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            raise errors.MalformedResponse(
                f"{self.where}: the answer to {what} is not valid JSON."
            ) from None
        if not isinstance(decoded, dict):
            raise errors.MalformedResponse(
                f"{self.where}: the answer to {what} is not a JSON object."
            )
        return decoded


def _private_file(directory: str, name: str, content: str) -> str:
    path = os.path.join(directory, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(content)
    return path


def _remove(directory: str | None) -> None:
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
