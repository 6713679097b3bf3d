"""``manage.py check_webhooks PATH...``: validate webhook manifests offline, for CI.

Exit status: 0 when every webhook configuration is valid, 1 when any is
invalid (or, with ``--fail-on``, has a risk finding that severe), 2 when any
input cannot be read or parsed. No database is touched.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from django.core.management.base import BaseCommand, CommandParser

from webhooks_ui.domain.checking import (
    CheckReport,
    CheckWarning,
    ObjectCheck,
    SourceCheck,
    Unreadable,
    check_objects,
)
from webhooks_ui.domain.manifest import DEFAULT_MAX_BYTES, ManifestError, load_objects

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_SOURCE = "<stdin>"


class Command(BaseCommand):
    help = (
        "Validate MutatingWebhookConfiguration and ValidatingWebhookConfiguration "
        "manifests as kube-apiserver would on create. PATH is a file, a directory "
        "(searched recursively for *.yaml, *.yml and *.json) or - for stdin. "
        "Risk findings are printed as warnings. Exit status 0: all valid; 1: some "
        "invalid, or a finding at --fail-on severity or worse; 2: some input "
        "unreadable."
    )
    # A CI check must be fast and must work without a database.
    requires_system_checks: list[str] = []
    requires_migrations_checks = False
    stealth_options = ("stdin",)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument(
            "--format",
            choices=("text", "json"),
            default="text",
            help="text (one line per object) or json (a stable document).",
        )
        parser.add_argument(
            "--fail-on",
            choices=("critical", "warning"),
            default=None,
            help="Also fail (exit 1) on risk findings of this severity or worse.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        stdin = options.get("stdin") or sys.stdin
        report = _check_paths(options["paths"], stdin=stdin, fail_on=options["fail_on"])
        for entry in report.unreadable:
            self.stderr.write(str(entry))
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            self._write_text(report)
        if report.exit_code:
            # SystemExit rather than CommandError: the verdict lines are already
            # printed, and CI needs the exact status without a traceback line.
            raise SystemExit(report.exit_code)

    def _write_text(self, report: CheckReport) -> None:
        for source in report.sources:
            for check in source.checked:
                self.stdout.write(_verdict_line(check))
                for warning in check.warnings:
                    self.stdout.write(_warning_line(warning))
            for skip in source.skipped:
                # Other kinds are only counted; a webhook kind with an unknown
                # apiVersion is worth a line because it is probably a typo.
                if skip.looks_like_webhook_configuration:
                    self.stdout.write(
                        f"skip {skip.position.label}: {skip.kind}/{skip.name}: "
                        f"{skip.reason}"
                    )
        self.stdout.write(_summary_line(report))


def _verdict_line(check: ObjectCheck) -> str:
    if check.valid:
        return f"ok   {check.position.label}: {check.kind}/{check.name}"
    return f"FAIL {check.position.label}: {check.message}"


def _warning_line(warning: CheckWarning) -> str:
    if warning.severity:
        return (
            f"     {warning.severity}: [{warning.code}] {warning.field}: "
            f"{warning.message}"
        )
    return f"     warning: {warning.field}: {warning.message}"


def _summary_line(report: CheckReport) -> str:
    counts = report.summary()
    line = (
        f"{counts['checked']} webhook configuration(s) in {counts['inputs']} "
        f"input(s): {counts['valid']} valid, {counts['invalid']} invalid"
    )
    if counts["skipped"]:
        line += f"; {counts['skipped']} other object(s) skipped"
    if counts["findings"]:
        line += f"; {counts['findings']} risk finding(s)"
    if report.fail_on:
        line += f" ({counts['failingFindings']} at --fail-on {report.fail_on} or worse)"
    if counts["unreadable"]:
        line += f"; {counts['unreadable']} input(s) could not be read"
    return line


def _check_paths(
    paths: list[str], *, stdin: TextIO | BinaryIO, fail_on: str | None = None
) -> CheckReport:
    now = datetime.now(UTC)
    sources: list[SourceCheck] = []
    unreadable: list[Unreadable] = []
    for source, read in _inputs(paths, stdin=stdin):
        try:
            objects = load_objects(read(), source=source)
        except ManifestError as error:
            unreadable.append(Unreadable.from_error(error))
            continue
        except OSError as error:
            unreadable.append(Unreadable(source, error.strerror or str(error)))
            continue
        sources.append(check_objects(objects, source=source, now=now))
    return CheckReport(tuple(sources), tuple(unreadable), fail_on)


def _inputs(paths: list[str], *, stdin: TextIO | BinaryIO) -> Iterator[tuple[str, Any]]:
    """(source label, reader) for every input, in a deterministic order."""
    for path in paths:
        if path == STDIN:
            yield STDIN_SOURCE, lambda: _read_stream(stdin)
        elif os.path.isdir(path):
            for file in _manifest_files(Path(path)):
                yield str(file), lambda file=file: _read_file(file)
        else:
            # Missing files surface as OSError from the reader, in order.
            yield path, lambda path=path: _read_file(Path(path))


def _manifest_files(directory: Path) -> list[Path]:
    """Manifest files under ``directory``, sorted; hidden directories skipped."""
    found: list[Path] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        found.extend(
            Path(root, name)
            for name in files
            if name.lower().endswith(MANIFEST_SUFFIXES)
        )
    return sorted(found)


def _read_file(path: Path) -> bytes:
    # Refuse oversized files before reading them into memory.
    if path.stat().st_size > DEFAULT_MAX_BYTES:
        raise ManifestError(
            f"input is larger than the {DEFAULT_MAX_BYTES}-byte limit",
            source=str(path),
        )
    return path.read_bytes()


def _read_stream(stream: TextIO | BinaryIO) -> str | bytes:
    binary = getattr(stream, "buffer", stream)
    # One byte (or character) past the limit is enough to know it is too big.
    return binary.read(DEFAULT_MAX_BYTES + 1)
