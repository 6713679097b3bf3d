"""``SandboxServer``: one sandbox cluster, started in background threads.

This is the interface shared with tests and with the sync code::

    with SandboxServer(name="dev", seed_dir=resolve_seed("dev")) as sb:
        client = kubernetes.config.new_client_from_config_dict(sb.kubeconfig())
        sb.store.create({...})       # change the cluster "out of band"
        sb.inject_fault("/apis/admissionregistration.k8s.io", status=503)
"""

from __future__ import annotations

import base64
import os
import secrets
import ssl
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from webhooks_ui.domain.manifest import dump_yaml

from . import state
from .faults import Fault, FaultPlan
from .handlers import Backend, User
from .paging import Paginator
from .seed_loader import load_seed_dir, sort_for_create
from .store import DEFAULT_HISTORY, ObjectStore
from .tls import ServingChain, generate_serving_chain
from .transport import SandboxHTTPServer

ADMIN_USER = "sandbox-admin"
VIEWER_USER = "sandbox-viewer"
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


class SandboxServer:
    """A kube-apiserver look-alike on loopback HTTPS, with its own CA and tokens."""

    def __init__(
        self,
        name: str = "dev",
        seed_dir: Path | None = None,
        objects: list[dict[str, Any]] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        state_file: Path | None = None,
        *,
        history_limit: int = DEFAULT_HISTORY,
        bookmark_interval: float = 5.0,
    ) -> None:
        self.name = name
        self.seed_dir = Path(seed_dir) if seed_dir is not None else None
        self.objects = list(objects or [])
        self.host = host
        self.port = port
        self.state_file = Path(state_file) if state_file is not None else None
        self.store = ObjectStore(history_limit=history_limit)
        self.bookmark_interval = bookmark_interval
        self._faults = FaultPlan()
        self._stopping = threading.Event()
        self._httpd: SandboxHTTPServer | None = None
        self._thread: threading.Thread | None = None
        # stop() may be called from a timer thread and from the owner at once.
        self._stop_lock = threading.Lock()
        self._chain: ServingChain | None = None
        self._token = ""
        self._readonly_token = ""

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> SandboxServer:
        """Load or seed state, bind, and serve in a background thread."""
        if self._thread is not None:
            raise RuntimeError("sandbox already started")
        if self.state_file is not None and self.state_file.exists():
            self._restore(state.load(self.state_file))
        else:
            self._chain = generate_serving_chain(self.name)
            self._token = secrets.token_urlsafe(32)
            self._readonly_token = secrets.token_urlsafe(32)
            self._seed()
        if self.state_file is not None:
            self.store.on_change = self._save
            self._save()
        backend = Backend(
            store=self.store,
            users_by_token={
                self._token: User(ADMIN_USER, read_only=False),
                self._readonly_token: User(VIEWER_USER, read_only=True),
            },
            faults=self._faults,
            paginator=Paginator(),
            stopping=self._stopping,
            server_address=lambda: self.url.removeprefix("https://"),
            bookmark_interval=self.bookmark_interval,
        )
        self._httpd = SandboxHTTPServer(
            (self.host, self.port), backend, self._ssl_context()
        )
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"sandbox-{self.name}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the listener and every open connection (watches included); join.
        Safe to call twice, and from two threads at once."""
        with self._stop_lock:
            if self._httpd is None or self._thread is None:
                return
            self._stopping.set()
            self.store.close()
            self._httpd.shutdown()
            self._thread.join()
            self._httpd.close_all()
            self._httpd.server_close()
            self._httpd = None
            self._thread = None

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- connection details ------------------------------------------------------

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"https://{host}:{self.port}"

    @property
    def ca_pem(self) -> str:
        if self._chain is None:
            raise RuntimeError("sandbox not started")
        return self._chain.ca_cert_pem

    @property
    def token(self) -> str:
        return self._token

    @property
    def readonly_token(self) -> str:
        return self._readonly_token

    def kubeconfig(self, readonly: bool = False, context: str | None = None) -> dict:
        """A kubeconfig dict with the CA embedded and a bearer token."""
        user = f"{self.name}-{'viewer' if readonly else 'admin'}"
        context = context or (f"{self.name}-readonly" if readonly else self.name)
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": self.name,
                    "cluster": {
                        "server": self.url,
                        "certificate-authority-data": base64.b64encode(
                            self.ca_pem.encode()
                        ).decode(),
                    },
                }
            ],
            "users": [
                {
                    "name": user,
                    "user": {"token": self.readonly_token if readonly else self.token},
                }
            ],
            "contexts": [
                {"name": context, "context": {"cluster": self.name, "user": user}}
            ],
            "current-context": context,
            "preferences": {},
        }

    def write_kubeconfig(self, path: Path | str, readonly: bool = False) -> Path:
        """Write the kubeconfig as YAML, owner-only (it holds a token)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_yaml(self.kubeconfig(readonly=readonly)), encoding="utf-8")
        path.chmod(0o600)
        return path

    # -- test hooks ----------------------------------------------------------------

    def inject_fault(
        self,
        path_prefix: str,
        *,
        status: int | None = None,
        malformed: bool = False,
        delay: float = 0.0,
        times: int = 1,
        method: str | None = None,
        skip: int = 0,
    ) -> None:
        """Answer the next ``times`` requests under ``path_prefix`` with a fault:
        an error Status with ``status``, a garbage 200 body, and/or after ``delay``.
        ``method`` limits it to one HTTP method; ``skip`` lets that many matching
        requests through first."""
        fault = Fault(path_prefix, status, malformed, delay, times, method, skip)
        self._faults.add(fault)

    def clear_faults(self) -> None:
        self._faults.clear()

    # -- internals -------------------------------------------------------------------

    def _seed(self) -> None:
        objects = load_seed_dir(self.seed_dir) if self.seed_dir is not None else []
        objects += self.objects
        given = {o["metadata"]["name"] for o in objects if o.get("kind") == "Namespace"}
        # Every real cluster has these; seeds may bring their own (with labels).
        system = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            for name in SYSTEM_NAMESPACES
            if name not in given
        ]
        for obj in sort_for_create(system + objects):
            self.store.create(obj)

    def _restore(self, saved: state.SandboxState) -> None:
        self._chain = saved.chain
        self._token = saved.token
        self._readonly_token = saved.readonly_token
        self.store.restore(saved.objects, saved.resource_version)

    def _save(self) -> None:
        assert self.state_file is not None and self._chain is not None
        objects, resource_version = self.store.export()
        state.save(
            self.state_file,
            state.SandboxState(
                name=self.name,
                chain=self._chain,
                token=self._token,
                readonly_token=self._readonly_token,
                resource_version=resource_version,
                objects=objects,
            ),
        )

    def _ssl_context(self) -> ssl.SSLContext:
        assert self._chain is not None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(["http/1.1"])
        # load_cert_chain only reads files: write the key to a private temp dir
        # and remove it straight away.
        with tempfile.TemporaryDirectory(prefix="sandbox-tls-") as directory:
            cert_path = os.path.join(directory, "tls.crt")
            key_path = os.path.join(directory, "tls.key")
            with open(cert_path, "w", encoding="utf-8") as handle:
                handle.write(self._chain.server_cert_pem + self._chain.ca_cert_pem)
            descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(self._chain.server_key_pem)
            context.load_cert_chain(cert_path, key_path)
        return context
