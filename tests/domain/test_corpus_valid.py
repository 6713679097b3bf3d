"""Every real manifest in the shared corpus validates with zero errors as a create."""

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.validation import validate


@pytest.fixture(scope="module")
def documents(corpus_dir: Path) -> list[tuple[str, dict]]:
    """(file#index, document) for every webhook configuration in the corpus."""
    yaml = YAML(typ="safe")
    documents = []
    for path in sorted(corpus_dir.glob("*.yaml")):
        for index, document in enumerate(yaml.load_all(path.read_text())):
            if isinstance(document, dict) and document.get("kind") in KINDS:
                documents.append((f"{path.name}#{index}", document))
    return documents


def test_corpus_is_not_empty(documents):
    assert len(documents) >= 50


def test_every_corpus_manifest_is_valid(documents):
    failures = {
        name: [str(error) for error in validate(document)]
        for name, document in documents
    }
    assert {name: errors for name, errors in failures.items() if errors} == {}


def test_every_corpus_manifest_is_a_valid_no_op_update(documents):
    for name, document in documents:
        assert validate(document, old=document) == [], name


@pytest.mark.parametrize("flag", [True, False])
def test_corpus_validation_is_deterministic(documents, flag):
    for _, document in documents[:10]:
        first = validate(document, reserved_static_suffix=flag)
        assert [e.key() for e in first] == [
            e.key() for e in validate(document, reserved_static_suffix=flag)
        ]
