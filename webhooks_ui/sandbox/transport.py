"""HTTPS transport: a stdlib ThreadingHTTPServer speaking HTTP/1.1 over TLS.

The stdlib server is enough for a loopback test server and adds no dependency.
TLS handshakes run in the per-connection thread (not in accept), every open
connection is tracked so ``close_all`` can end idle keep-alives and watch
streams promptly, and watch responses use chunked encoding like the real server.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .faults import Fault
from .handlers import ApiRequest, Backend, Response, dispatch
from .status import ApiError, failure, injected

logger = logging.getLogger(__name__)

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError)


class SandboxHTTPServer(ThreadingHTTPServer):
    """Accepts TLS connections and remembers them (and their threads) until closed."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        backend: Backend,
        ssl_context: ssl.SSLContext,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.backend = backend
        self.ssl_context = ssl_context
        self._connections: dict[threading.Thread, socket.socket] = {}
        self._connections_lock = threading.Lock()
        super().__init__(address, SandboxRequestHandler)

    def get_request(self) -> tuple[socket.socket, Any]:
        raw, address = self.socket.accept()
        wrapped = self.ssl_context.wrap_socket(
            raw, server_side=True, do_handshake_on_connect=False
        )
        return wrapped, address

    def track(self, connection: socket.socket) -> None:
        with self._connections_lock:
            self._connections[threading.current_thread()] = connection

    def untrack(self) -> None:
        with self._connections_lock:
            self._connections.pop(threading.current_thread(), None)

    def close_all(self, timeout: float = 5.0) -> None:
        """Shut every open connection and wait for its thread to finish."""
        with self._connections_lock:
            connections = dict(self._connections)
        for connection in connections.values():
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + timeout
        for thread in connections:
            thread.join(max(0.0, deadline - time.monotonic()))

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that drops a connection or fails the TLS handshake is routine.
        logger.debug("connection from %s ended with an error", client_address)


class SandboxRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle's algorithm the
    # body then waits for the client's delayed ACK (~40 ms per small response).
    disable_nagle_algorithm = True
    # Idle keep-alive connections end after this long (seconds).
    timeout = 120
    server: SandboxHTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except _CLIENT_GONE:
            pass
        finally:
            self.server.untrack()

    def version_string(self) -> str:
        return "sandbox-apiserver"

    def log_message(self, format: str, *args: Any) -> None:
        # Request lines only (never headers, which carry the bearer token).
        logger.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _serve(self) -> None:
        backend = self.server.backend
        url = urlsplit(self.path)
        request = ApiRequest(
            method=self.command,
            path=url.path,
            query=parse_qs(url.query, keep_blank_values=True),
            headers=self.headers,
            body=self._read_body(),
        )
        fault = backend.faults.take(url.path, self.command)
        if fault is not None and self._answer_fault(fault, backend):
            return
        try:
            response = dispatch(backend, request)
        except ApiError as error:
            response = Response(error.code, error.status)
        except Exception:
            logger.exception("sandbox request failed: %s %s", self.command, url.path)
            response = Response(
                500, failure(500, "InternalError", "Internal error occurred", {})
            )
        try:
            if response.events is not None:
                self._stream(response)
            else:
                self._send(response)
        except _CLIENT_GONE:
            self.close_connection = True

    def _answer_fault(self, fault: Fault, backend: Backend) -> bool:
        """Apply a fault; True when it replaced the real answer."""
        if fault.delay and backend.stopping.wait(fault.delay):
            # Stopped while holding the request: drop it unanswered, as a dying
            # apiserver would (not answer it in a race with the shutdown).
            self.close_connection = True
            return True
        if fault.status is not None:
            self._send(Response(fault.status, injected(fault.status)))
            return True
        if fault.malformed:
            self._send(Response(200, b'{"kind": "Status", "apiVersion": <garbage'))
            return True
        return False

    def _headers(self, response: Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", str(uuid.uuid4()))
        for warning in response.warnings:
            self.send_header("Warning", warning)

    def _send(self, response: Response) -> None:
        body = response.encoded()
        self._headers(response)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _stream(self, response: Response) -> None:
        assert response.events is not None
        self._headers(response)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        # Watch connections are not reused: clients open one per watch anyway.
        self.close_connection = True
        try:
            for event in response.events:
                self._chunk(Response(200, event).encoded())
            self._chunk(b"")
        finally:
            close = getattr(response.events, "close", None)
            if close is not None:
                close()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
