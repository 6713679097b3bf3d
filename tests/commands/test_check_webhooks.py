"""``manage.py check_webhooks``: what a CI pipeline sees (lines, JSON, exit status)."""

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from webhooks_ui.domain.manifest import load_documents

VALID = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata:
      name: policy
    webhooks:
      - name: policy.example.com
        clientConfig:
          url: https://hooks.example.com/validate
        sideEffects: None
        admissionReviewVersions: ["v1"]
    """
)
TOO_SLOW = VALID.replace("name: policy\n", "name: slow\n").replace(
    '["v1"]\n', '["v1"]\n    timeoutSeconds: 31\n'
)
TOO_SLOW_LINE = (
    'ValidatingWebhookConfiguration.admissionregistration.k8s.io "slow" is invalid: '
    "webhooks[0].timeoutSeconds: Invalid value: 31: "
    "the timeout value must be between 1 and 30 seconds"
)
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
LEGACY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1beta1
    kind: MutatingWebhookConfiguration
    metadata:
      name: legacy
    webhooks:
      - name: legacy.example.com
        clientConfig:
          url: https://hooks.example.com/mutate
        sideEffects: None
    """
)
MALFORMED = "apiVersion: v1\nkind: ConfigMap\nmetadata: name: x\n"


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """call_command, returning (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    options = {"stdout": out, "stderr": err}
    if stdin is not None:
        options["stdin"] = io.StringIO(stdin)
    try:
        call_command("check_webhooks", *args, **options)
        status = 0
    except SystemExit as exit_:
        status = exit_.code
    return status, out.getvalue(), err.getvalue()


def run_process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The real thing, as CI runs it: a new interpreter and manage.py."""
    return subprocess.run(
        [sys.executable, "manage.py", "check_webhooks", *args],
        cwd=settings.BASE_DIR,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- text output --------------------------------------------------------------


def test_valid_file_prints_ok_line_and_summary(tmp_path):
    path = write(tmp_path, "policy.yaml", VALID)
    status, out, err = run(str(path))
    assert status == 0
    assert out.splitlines() == [
        f"ok   {path}: ValidatingWebhookConfiguration/policy",
        "1 webhook configuration(s) in 1 input(s): 1 valid, 0 invalid",
    ]
    assert err == ""


def test_invalid_object_prints_the_apiserver_line_and_exits_1(tmp_path):
    path = write(tmp_path, "slow.yaml", TOO_SLOW)
    status, out, _ = run(str(path))
    assert status == 1
    assert out.splitlines()[0] == f"FAIL {path}: {TOO_SLOW_LINE}"


def test_multi_document_file_names_documents_and_counts_other_kinds(tmp_path):
    path = write(tmp_path, "bundle.yaml", "---\n".join([CONFIG_MAP, VALID, TOO_SLOW]))
    status, out, _ = run(str(path))
    assert status == 1
    assert out.splitlines() == [
        f"ok   {path}:doc#2: ValidatingWebhookConfiguration/policy",
        f"FAIL {path}:doc#3: {TOO_SLOW_LINE}",
        "2 webhook configuration(s) in 1 input(s): 1 valid, 1 invalid; "
        "1 other object(s) skipped",
    ]


def test_list_items_are_named_by_index(tmp_path):
    items = json.dumps({"kind": "List", "items": [{"kind": "ConfigMap"}, {}]})
    (tmp_path / "list.json").write_text(items)
    wrapped = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [json.loads(json.dumps(_valid_dict()))],
    }
    write(tmp_path, "wrapped.json", json.dumps(wrapped))
    status, out, _ = run(str(tmp_path))
    assert status == 0
    assert f"ok   {tmp_path / 'wrapped.json'}:items[0]: " in out


def _valid_dict() -> dict:
    return load_documents(VALID)[0]


def test_v1beta1_is_converted_with_its_defaults_printed_as_warnings(tmp_path):
    path = write(tmp_path, "legacy.yaml", LEGACY)
    status, out, _ = run(str(path))
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"ok   {path}: MutatingWebhookConfiguration/legacy"
    assert lines[1].startswith("     warning: apiVersion: ")
    assert lines[2] == (
        "     warning: webhooks[0].failurePolicy: v1beta1 defaulted failurePolicy "
        "to Ignore; v1 would default it to Fail; kept as Ignore, so the webhook "
        "still fails open"
    )
    assert {line.split(":")[1].strip() for line in lines[2:6]} == {
        "webhooks[0].failurePolicy",
        "webhooks[0].matchPolicy",
        "webhooks[0].timeoutSeconds",
        "webhooks[0].admissionReviewVersions",
    }


def test_v1beta1_without_side_effects_fails_as_v1_would_on_create(tmp_path):
    path = write(tmp_path, "legacy.yaml", LEGACY.replace("    sideEffects: None\n", ""))
    status, out, _ = run(str(path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"FAIL {path}: MutatingWebhookConfiguration.admissionregistration.k8s.io "
        '"legacy" is invalid: webhooks[0].sideEffects: Unsupported value: '
        '"Unknown": supported values: "None", "NoneOnDryRun"'
    )
    assert "Unknown, which v1 does not accept" in out


def test_webhook_kind_with_unknown_api_version_is_skipped_visibly(tmp_path):
    typo = VALID.replace("admissionregistration.k8s.io/v1", "admissionregistration/v1")
    path = write(tmp_path, "typo.yaml", typo)
    status, out, _ = run(str(path))
    assert status == 0
    assert out.splitlines()[0] == (
        f"skip {path}: ValidatingWebhookConfiguration/policy: apiVersion "
        '"admissionregistration/v1" is not admissionregistration.k8s.io/v1 or v1beta1'
    )


def test_directory_walk_is_recursive_sorted_and_filtered(tmp_path):
    write(tmp_path, "b/z.yml", VALID)
    write(tmp_path, "b/a.json", json.dumps(_valid_dict()))
    write(tmp_path, "a.YAML", VALID)
    write(tmp_path, "notes.txt", "not: [a manifest")
    write(tmp_path, ".git/config.yaml", "broken: [")
    status, out, _ = run(str(tmp_path))
    assert status == 0
    sources = [line.split(" ")[-2].rstrip(":") for line in out.splitlines()[:-1]]
    assert sources == [
        str(tmp_path / "a.YAML"),
        str(tmp_path / "b" / "a.json"),
        str(tmp_path / "b" / "z.yml"),
    ]


def test_malformed_yaml_goes_to_stderr_with_position_and_exits_2(tmp_path):
    broken = write(tmp_path, "broken.yaml", MALFORMED)
    good = write(tmp_path, "slow.yaml", TOO_SLOW)
    status, out, err = run(str(broken), str(good))
    assert status == 2  # unreadable input outranks invalid objects
    assert err.splitlines() == [f"{broken}:3:15: mapping values are not allowed here"]
    assert f"FAIL {good}: " in out  # the other files are still checked
    assert out.splitlines()[-1].endswith("; 1 input(s) could not be read")


def test_missing_path_exits_2(tmp_path):
    status, _, err = run(str(tmp_path / "absent.yaml"))
    assert status == 2
    assert err.strip() == f"{tmp_path / 'absent.yaml'}: No such file or directory"


def test_non_mapping_document_is_unreadable(tmp_path):
    path = write(tmp_path, "list.yaml", "- a\n- b\n")
    status, _, err = run(str(path))
    assert status == 2
    assert err.startswith(f"{path}:1:1: document 1 is a list")


def test_stdin_dash(tmp_path):
    status, out, _ = run("-", stdin=TOO_SLOW)
    assert status == 1
    assert out.splitlines()[0] == f"FAIL <stdin>: {TOO_SLOW_LINE}"


def test_empty_directory_checks_nothing_and_passes(tmp_path):
    status, out, _ = run(str(tmp_path))
    assert status == 0
    assert out.strip() == "0 webhook configuration(s) in 0 input(s): 0 valid, 0 invalid"


# --- JSON output --------------------------------------------------------------


def test_json_format_is_a_stable_document(tmp_path):
    path = write(tmp_path, "bundle.yaml", "---\n".join([VALID, TOO_SLOW, CONFIG_MAP]))
    write(tmp_path, "broken.yaml", MALFORMED)
    status, out, _ = run(str(tmp_path), "--format", "json")
    assert status == 2
    report = json.loads(out)
    assert list(report) == ["results", "skipped", "unreadable", "summary", "exitCode"]
    valid, invalid = report["results"]
    assert valid == {
        "source": str(path),
        "document": 1,
        "item": None,
        "line": 1,
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "name": "policy",
        "valid": True,
        "message": None,
        "errors": [],
        "warnings": [],
    }
    assert invalid["document"] == 2
    assert invalid["valid"] is False
    assert invalid["message"] == TOO_SLOW_LINE
    assert invalid["errors"] == [
        {
            "field": "webhooks[0].timeoutSeconds",
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 31: "
            "the timeout value must be between 1 and 30 seconds",
        }
    ]
    assert report["skipped"] == [
        {
            "source": str(path),
            "document": 3,
            "item": None,
            "line": 24,
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "settings",
            "reason": "not a webhook configuration",
        }
    ]
    assert report["unreadable"] == [
        {
            "source": str(tmp_path / "broken.yaml"),
            "line": 3,
            "column": 15,
            "message": "mapping values are not allowed here",
            "text": f"{tmp_path / 'broken.yaml'}:3:15: "
            "mapping values are not allowed here",
        }
    ]
    assert report["summary"] == {
        "inputs": 2,
        "checked": 2,
        "valid": 1,
        "invalid": 1,
        "warnings": 0,
        "findings": 0,
        "failingFindings": 0,
        "skipped": 1,
        "unreadable": 1,
    }
    assert report["exitCode"] == 2


def test_json_warnings_carry_a_code_and_field(tmp_path):
    write(tmp_path, "legacy.yaml", LEGACY)
    _, out, _ = run(str(tmp_path), "--format=json")
    warnings = json.loads(out)["results"][0]["warnings"]
    assert warnings[0]["code"] == "v1beta1-removed"
    conversions = [w for w in warnings[1:] if not w["severity"]]
    assert {w["code"] for w in conversions} == {"v1beta1-default"}
    assert conversions[0]["field"] == "webhooks[0].failurePolicy"
    # The converted object is also risk-checked: it only speaks v1beta1.
    risks = {w["code"]: w["severity"] for w in warnings if w["severity"]}
    assert risks["review-versions-without-v1"] == "warning"


# --- the real corpus and a real process ---------------------------------------


def test_whole_corpus_is_valid(corpus_dir, corpus_v1beta1_dir):
    status, out, err = run(str(corpus_dir), str(corpus_v1beta1_dir))
    assert (status, err) == (0, "")
    assert out.splitlines()[-1].startswith(
        "90 webhook configuration(s) in 90 input(s): 90 valid, 0 invalid; "
    )


def test_process_exit_status_0_for_a_valid_directory(corpus_dir):
    result = run_process(str(corpus_dir))
    assert result.returncode == 0, result.stderr
    assert ": 88 valid, 0 invalid; " in result.stdout.splitlines()[-1]


def test_process_exit_status_1_with_the_apiserver_line(tmp_path):
    path = write(tmp_path, "slow.yaml", TOO_SLOW)
    result = run_process(str(path))
    assert result.returncode == 1
    assert f"FAIL {path}: {TOO_SLOW_LINE}\n" in result.stdout
    assert "Traceback" not in result.stderr


def test_process_exit_status_2_for_malformed_yaml(tmp_path):
    path = write(tmp_path, "broken.yaml", MALFORMED)
    result = run_process(str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"{path}:3:15: mapping values are not allowed here"


def test_process_reads_stdin_and_prints_json():
    result = run_process("-", "--format", "json", stdin=VALID)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["results"][0]["source"] == "<stdin>"
    assert report["results"][0]["valid"] is True


@pytest.mark.parametrize("args", [[], ["--format", "yaml", "x"]])
def test_process_usage_errors_exit_nonzero(args):
    assert run_process(*args).returncode != 0


# --- risk findings and --fail-on ------------------------------------------------

CATCH_ALL = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata:
      name: catch-all
    webhooks:
      - name: everything.example.com
        clientConfig:
          service: {namespace: guard, name: guard}
        rules:
          - operations: ["*"]
            apiGroups: ["*"]
            apiVersions: ["*"]
            resources: ["*/*"]
        sideEffects: None
        admissionReviewVersions: ["v1"]
    """
)


def test_risk_findings_are_printed_as_warnings_without_failing(tmp_path):
    write(tmp_path, "catch-all.yaml", CATCH_ALL)
    status, out, _ = run(str(tmp_path))
    assert status == 0
    assert "critical: [fail-closed-system-namespaces] webhooks[0]" in out
    assert "Fix: " in out


@pytest.mark.parametrize(
    ("threshold", "manifest", "expected"),
    [
        ("critical", CATCH_ALL, 1),
        ("warning", CATCH_ALL, 1),
        ("critical", VALID, 0),
    ],
)
def test_fail_on_turns_severe_findings_into_a_failing_exit(
    tmp_path, threshold, manifest, expected
):
    write(tmp_path, "m.yaml", manifest)
    status, out, _ = run(str(tmp_path), "--fail-on", threshold)
    assert status == expected
    if expected:
        assert f"at --fail-on {threshold} or worse)" in out.splitlines()[-1]


def test_fail_on_counts_in_the_json_document(tmp_path):
    write(tmp_path, "m.yaml", CATCH_ALL)
    status, out, _ = run(str(tmp_path), "--format", "json", "--fail-on", "critical")
    report = json.loads(out)
    assert status == 1 and report["exitCode"] == 1
    assert report["summary"]["failingFindings"] >= 1
    assert report["results"][0]["valid"] is True
