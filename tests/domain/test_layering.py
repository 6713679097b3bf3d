"""The domain package stays pure: no Django, no kubernetes client, no I/O libraries."""

import ast
from pathlib import Path

import webhooks_ui.domain

FORBIDDEN = ("django", "kubernetes", "rest_framework", "requests", "urllib3", "socket")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_domain_imports_no_framework_or_io():
    package_dir = Path(webhooks_ui.domain.__file__).parent
    offenders = {}
    for path in sorted(package_dir.rglob("*.py")):
        bad = {
            name
            for name in _imported_modules(path)
            if name.split(".")[0] in FORBIDDEN
            or name.startswith("webhooks_ui.")
            and not name.startswith("webhooks_ui.domain")
        }
        if bad:
            offenders[str(path.relative_to(package_dir))] = sorted(bad)
    assert offenders == {}


def test_layering_check_detects_a_forbidden_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from django.db import models\nimport kubernetes.client\n")
    assert _imported_modules(sample) == {"django.db", "kubernetes.client"}
