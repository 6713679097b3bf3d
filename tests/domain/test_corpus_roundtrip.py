"""Every real manifest in the shared corpus loads, and survives our own dumps."""

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.manifest import (
    dump_json,
    dump_yaml,
    dump_yaml_documents,
    load_documents,
)


def corpus_files(directory: Path) -> list[Path]:
    files = sorted(directory.glob("*.yaml"))
    assert files, f"no manifests found in {directory}"
    return files


def key_orders(value) -> list:
    """Every mapping's key order, depth first: equality alone would ignore it."""
    if isinstance(value, dict):
        return [list(value)] + [
            order for v in value.values() for order in key_orders(v)
        ]
    if isinstance(value, list):
        return [order for item in value for order in key_orders(item)]
    return []


def assert_round_trips(path: Path) -> None:
    (obj,) = load_documents(path.read_bytes(), source=path.name)
    assert obj["kind"] in KINDS
    for dumped in (dump_yaml(obj), dump_json(obj)):
        (again,) = load_documents(dumped)
        assert again == obj
        assert json.dumps(again) == json.dumps(obj)
        assert key_orders(again) == key_orders(obj)


def test_every_v1_corpus_file_loads_and_round_trips(corpus_dir):
    files = corpus_files(corpus_dir)
    for path in files:
        assert_round_trips(path)
    assert len(files) == 88  # SOURCES.md: 88 v1 objects, one per file


def test_every_v1beta1_corpus_file_loads_and_round_trips(corpus_v1beta1_dir):
    for path in corpus_files(corpus_v1beta1_dir):
        assert_round_trips(path)


def test_the_whole_corpus_as_one_multi_document_stream(corpus_dir):
    objs = [load_documents(p.read_bytes())[0] for p in corpus_files(corpus_dir)]
    assert load_documents(dump_yaml_documents(objs)) == objs
    # and as a kubectl-style List
    assert load_documents(
        dump_json({"apiVersion": "v1", "kind": "List", "items": objs})
    )
    assert load_documents(dump_json({"kind": "List", "items": objs})) == objs


def test_corpus_details_survive_loading(corpus_dir):
    (karmada,) = load_documents(
        (
            corpus_dir
            / "karmada--validatingwebhookconfiguration--validating-config.yaml"
        ).read_bytes()
    )
    # The hand-rendered empty caBundle stays an empty string, not null.
    assert karmada["webhooks"][0]["clientConfig"]["caBundle"] == ""


@pytest.mark.parametrize(
    "name",
    [
        "istio--mutatingwebhookconfiguration--istio-sidecar-injector.yaml",
        "kyverno--validatingwebhookconfiguration--kyverno-resource-validating-webhook-cfg.yaml",
    ],
)
def test_dumped_yaml_is_stable(corpus_dir, name):
    (obj,) = load_documents((corpus_dir / name).read_bytes())
    once = dump_yaml(obj)
    assert dump_yaml(load_documents(once)[0]) == once


def test_loader_agrees_with_ruamels_own_safe_loader_on_the_corpus(
    corpus_dir, corpus_v1beta1_dir
):
    # An independent reading of the same files: our event-based builder must
    # not change any value that a standard YAML 1.2 loader produces.
    reference = YAML(typ="safe", pure=True)
    for path in corpus_files(corpus_dir) + corpus_files(corpus_v1beta1_dir):
        text = path.read_text()
        assert load_documents(text) == [reference.load(text)], path.name
