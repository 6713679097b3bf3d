"""The review modules over every real manifest in ../shared/corpus/webhooks.

Each check collects failures over the whole corpus and reports them together,
so one odd manifest does not hide the others.
"""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from webhooks_ui.domain.certificates import CaBundleInfo, decode_ca_bundle
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.diff import diff_objects
from webhooks_ui.domain.explain import explain_webhook
from webhooks_ui.domain.normalize import fingerprint
from webhooks_ui.domain.ownership import Owner, detect_owners

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def load_corpus(corpus_dir: Path) -> list[tuple[str, dict]]:
    yaml = YAML(typ="safe")
    objects = []
    for path in sorted(corpus_dir.glob("*.yaml")):
        for index, doc in enumerate(yaml.load_all(path.read_text())):
            if isinstance(doc, dict):
                objects.append((f"{path.name}#{index}", doc))
    return objects


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> list[tuple[str, dict]]:
    objects = load_corpus(corpus_dir)
    assert objects, f"no manifests in {corpus_dir}"
    return objects


def webhooks_of(obj: dict) -> list[dict]:
    return [w for w in obj.get("webhooks") or [] if isinstance(w, dict)]


def present_paths(webhook: dict) -> list[str]:
    """Every field the raw webhook sets, down to service fields and list items."""
    paths = list(webhook)
    client_config = webhook.get("clientConfig")
    if isinstance(client_config, dict):
        paths += [f"clientConfig.{key}" for key in client_config]
        service = client_config.get("service")
        if isinstance(service, dict):
            paths += [f"clientConfig.service.{key}" for key in service]
    for key in ("rules", "matchConditions"):
        if isinstance(webhook.get(key), list):
            paths += [f"{key}[{i}]" for i in range(len(webhook[key]))]
    return paths


def test_every_webhook_explains_every_field_it_sets(corpus):
    missing = []
    for name, obj in corpus:
        for index, webhook in enumerate(webhooks_of(obj)):
            explained = {
                item.path for item in explain_webhook(webhook, kind=obj["kind"])
            }
            for path in present_paths(webhook):
                if path not in explained:
                    missing.append(f"{name} webhooks[{index}].{path}")
    assert missing == []


def test_diff_with_itself_and_with_defaults_is_empty(corpus):
    noisy = {}
    for name, obj in corpus:
        changes = diff_objects(obj, obj) + diff_objects(obj, apply_defaults(obj))
        if changes:
            noisy[name] = [change.summary for change in changes]
        assert fingerprint(obj) == fingerprint(apply_defaults(obj)), name
    assert noisy == {}


def test_every_ca_bundle_decodes_without_raising(corpus):
    decoded = 0
    for _name, obj in corpus:
        for webhook in webhooks_of(obj):
            client_config = webhook.get("clientConfig") or {}
            if "caBundle" in client_config:
                info = decode_ca_bundle(client_config["caBundle"], now=NOW)
                assert isinstance(info, CaBundleInfo)
                decoded += 1
    assert decoded > 0


def test_detect_owners_runs_on_every_manifest(corpus):
    for name, obj in corpus:
        owners = detect_owners(obj)
        assert all(isinstance(owner, Owner) and owner.evidence for owner in owners), (
            name
        )
