"""Fault injection for failure tests: error answers, garbage bodies, slow answers."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass
class Fault:
    """Answer the next ``times`` requests whose path starts with ``path_prefix``."""

    path_prefix: str
    status: int | None
    malformed: bool
    delay: float
    times: int
    # Only requests with this method (GET, PUT, ...), when set.
    method: str | None = None
    # Let this many matching requests through first (e.g. fail the write
    # that follows a dry run).
    skip: int = 0


class FaultPlan:
    """Pending faults, consumed first-registered first, safe across handler threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[Fault] = []

    def add(self, fault: Fault) -> None:
        if fault.times < 1:
            raise ValueError("times must be at least 1")
        with self._lock:
            self._faults.append(fault)

    def take(self, path: str, method: str = "GET") -> Fault | None:
        """The fault for this request, if any, counting it as used."""
        with self._lock:
            for fault in self._faults:
                if fault.method and fault.method != method:
                    continue
                if path.startswith(fault.path_prefix):
                    if fault.skip:
                        fault.skip -= 1
                        return None
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
