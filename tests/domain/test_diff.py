"""diff: semantic changes keyed like the API merges, and text diffs for display."""

import difflib

from tests.domain import minimal
from tests.domain.minimal import make_webhook
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.diff import (
    Change,
    DiffLine,
    NumberedLine,
    diff_objects,
    side_by_side,
    yaml_text_diff,
)
from webhooks_ui.domain.normalize import fingerprint


def make_config(*webhooks, kind="MutatingWebhookConfiguration", **metadata):
    return minimal.make_config(*webhooks, kind=kind, **metadata)


def paths(changes):
    return [(change.path, change.op) for change in changes]


def test_identical_objects_have_no_changes():
    obj = make_config()
    assert diff_objects(obj, obj) == []
    assert diff_objects(None, None) == []


def test_unset_field_equals_its_default():
    assert diff_objects(make_config(), apply_defaults(make_config())) == []
    explicit = make_config(make_webhook(timeoutSeconds=10, failurePolicy="Fail"))
    assert diff_objects(make_config(), explicit) == []


def test_server_managed_fields_are_ignored():
    read_back = make_config(
        uid="x", resourceVersion="9", generation=4, managedFields=[{"manager": "m"}]
    )
    read_back["status"] = {}
    assert diff_objects(make_config(), read_back) == []


def test_scalar_change_has_path_webhook_and_summary():
    old = make_config(make_webhook(timeoutSeconds=10))
    new = make_config(make_webhook(timeoutSeconds=30))
    assert diff_objects(old, new) == [
        Change(
            path="webhooks[0].timeoutSeconds",
            op="changed",
            old=10,
            new=30,
            summary='webhook "a.example.com": timeoutSeconds 10 → 30',
            webhook="a.example.com",
        )
    ]


def test_webhooks_are_paired_by_name_and_use_the_new_index():
    old = make_config(make_webhook("a.example.com"), make_webhook("b.example.com"))
    new = make_config(
        make_webhook("c.example.com"),
        make_webhook("b.example.com", failurePolicy="Ignore"),
    )
    changes = diff_objects(old, new)
    assert paths(changes) == [
        ("webhooks[0]", "removed"),  # a: old index
        ("webhooks[0]", "added"),  # c: new index
        ("webhooks[1].failurePolicy", "changed"),  # b: index in the new object
    ]
    assert [c.webhook for c in changes] == [
        "a.example.com",
        "c.example.com",
        "b.example.com",
    ]
    assert changes[0].summary == 'webhook "a.example.com" removed'
    assert changes[1].summary == 'webhook "c.example.com" added'


def test_reordering_webhooks_is_one_moved_change():
    a, b = make_webhook("a.example.com"), make_webhook("b.example.com")
    changes = diff_objects(make_config(a, b), make_config(b, a))
    assert changes == [
        Change(
            path="webhooks",
            op="moved",
            old=["a.example.com", "b.example.com"],
            new=["b.example.com", "a.example.com"],
            summary=(
                "webhook order changed: a.example.com, b.example.com → "
                "b.example.com, a.example.com (mutating webhooks are called in "
                "this order)"
            ),
        )
    ]


def test_rules_and_string_lists_are_atomic():
    old = make_config()
    rules = make_webhook()["rules"]
    rules[0] = {**rules[0], "operations": ["CREATE", "UPDATE"]}
    new = make_config(
        make_webhook(rules=rules, admissionReviewVersions=["v1", "v1beta1"])
    )
    changes = diff_objects(old, new)
    assert paths(changes) == [
        ("webhooks[0].rules", "changed"),
        ("webhooks[0].admissionReviewVersions", "changed"),
    ]
    assert (
        changes[0].summary == 'webhook "a.example.com": rules changed (1 rule → 1 rule)'
    )
    assert changes[1].summary == (
        'webhook "a.example.com": admissionReviewVersions [v1] → [v1, v1beta1]'
    )


def test_match_conditions_are_paired_by_name():
    def cond(name, expression="true"):
        return {"name": name, "expression": expression}

    old = make_config(make_webhook(matchConditions=[cond("one"), cond("two")]))
    new = make_config(
        make_webhook(matchConditions=[cond("two", "false"), cond("three")])
    )
    changes = diff_objects(old, new)
    assert paths(changes) == [
        ("webhooks[0].matchConditions[0]", "removed"),  # "one", old index 0
        ("webhooks[0].matchConditions[0].expression", "changed"),  # "two", new index
        ("webhooks[0].matchConditions[1]", "added"),  # "three"
    ]
    assert changes[1].summary == (
        'webhook "a.example.com": matchCondition "two" expression true → false'
    )


def test_match_conditions_added_to_a_webhook_without_any():
    new = make_config(make_webhook(matchConditions=[{"name": "c", "expression": "x"}]))
    assert paths(diff_objects(make_config(), new)) == [
        ("webhooks[0].matchConditions[0]", "added")
    ]


def test_match_condition_reorder_is_reported():
    conds = [{"name": "x", "expression": "true"}, {"name": "y", "expression": "true"}]
    old = make_config(make_webhook(matchConditions=conds))
    new = make_config(make_webhook(matchConditions=list(reversed(conds))))
    assert paths(diff_objects(old, new)) == [("webhooks[0].matchConditions", "moved")]


def test_labels_and_annotations_are_diffed_per_key():
    old = make_config(labels={"app": "a", "gone": "x"}, annotations={})
    new = make_config(
        labels={"app": "b"},
        annotations={"cert-manager.io/inject-ca-from": "ns/cert"},
    )
    changes = diff_objects(old, new)
    assert paths(changes) == [
        ('metadata.annotations["cert-manager.io/inject-ca-from"]', "added"),
        ('metadata.labels["app"]', "changed"),
        ('metadata.labels["gone"]', "removed"),
    ]
    assert [c.summary for c in changes] == [
        'annotation "cert-manager.io/inject-ca-from" added: ns/cert',
        'label "app" a → b',
        'label "gone" removed (was x)',
    ]


def test_selector_match_labels_use_bracket_keys():
    old = make_config(make_webhook(namespaceSelector={"matchLabels": {"env": "a"}}))
    new = make_config(make_webhook(namespaceSelector={"matchLabels": {"env": "b"}}))
    assert paths(diff_objects(old, new)) == [
        ('webhooks[0].namespaceSelector.matchLabels["env"]', "changed")
    ]


def test_unknown_fields_are_diffed_generically():
    old = make_config()
    new = make_config(make_webhook(futureField={"mode": "strict", "odd/key": 1}))
    new["spec"] = {"x": 1}
    changes = diff_objects(old, new)
    assert paths(changes) == [
        ("webhooks[0].futureField", "added"),
        ("spec", "added"),  # known top-level fields first, then the rest
    ]
    changed = make_config(make_webhook(futureField={"mode": "lax", "odd/key": 2}))
    assert paths(
        diff_objects(
            make_config(make_webhook(futureField={"mode": "strict", "odd/key": 1})),
            changed,
        )
    ) == [
        ("webhooks[0].futureField.mode", "changed"),
        ('webhooks[0].futureField["odd/key"]', "changed"),
    ]


def test_values_of_different_json_types_differ():
    old = make_config(make_webhook(timeoutSeconds=1))
    new = make_config(make_webhook(timeoutSeconds=True))
    assert paths(diff_objects(old, new)) == [("webhooks[0].timeoutSeconds", "changed")]


def test_client_config_switch_from_service_to_url():
    new = make_config(make_webhook(clientConfig={"url": "https://hook.example.com/"}))
    assert paths(diff_objects(make_config(), new)) == [
        ("webhooks[0].clientConfig.service", "removed"),
        ("webhooks[0].clientConfig.url", "added"),
    ]


def with_bundle(bundle, **metadata):
    config = {"service": {"namespace": "ns", "name": "svc"}, "caBundle": bundle}
    return make_config(make_webhook(clientConfig=config), **metadata)


def test_ca_bundle_change_is_reported_without_printing_it():
    changes = diff_objects(with_bundle("QUFB"), with_bundle("QkJCQg=="))
    assert paths(changes) == [("webhooks[0].clientConfig.caBundle", "changed")]
    assert changes[0].summary == (
        'webhook "a.example.com": clientConfig.caBundle (CA bundle, 4 characters) '
        "→ (CA bundle, 8 characters)"
    )


def test_injected_ca_bundle_is_ignored_unless_asked():
    injected = {"annotations": {"cert-manager.io/inject-ca-from": "ns/c"}}
    old, new = with_bundle("QUFB", **injected), with_bundle("QkJC", **injected)
    assert diff_objects(old, new) == []
    assert paths(diff_objects(old, new, compare_ca_bundle=True)) == [
        ("webhooks[0].clientConfig.caBundle", "changed")
    ]
    # Adding the injector annotation is one change, not also a caBundle removal.
    assert paths(diff_objects(with_bundle("QUFB"), old)) == [
        ('metadata.annotations["cert-manager.io/inject-ca-from"]', "added")
    ]
    assert (
        diff_objects(with_bundle("QUFB"), with_bundle("QkJC"), compare_ca_bundle=False)
        == []
    )


def test_created_and_deleted_objects():
    obj = make_config()
    (created,) = diff_objects(None, obj)
    assert (created.path, created.op, created.old) == ("", "added", None)
    assert created.new["webhooks"][0]["failurePolicy"] == "Fail"  # normalised
    assert created.summary == 'MutatingWebhookConfiguration "cfg" created'
    (deleted,) = diff_objects(obj, None)
    assert (deleted.op, deleted.summary) == (
        "removed",
        'MutatingWebhookConfiguration "cfg" deleted',
    )


def test_duplicate_names_are_paired_by_occurrence():
    old = make_config(make_webhook("d.example.com"), make_webhook("d.example.com"))
    new = make_config(
        make_webhook("d.example.com"), make_webhook("d.example.com", timeoutSeconds=5)
    )
    assert paths(diff_objects(old, new)) == [("webhooks[1].timeoutSeconds", "changed")]


def test_empty_diff_matches_equal_fingerprints():
    a, b = make_webhook("a.example.com"), make_webhook("b.example.com")
    pairs = [
        (make_config(a, b), make_config(a, b)),
        (make_config(a, b), make_config(b, a)),
        (make_config(a), apply_defaults(make_config(a))),
        (make_config(a), make_config(make_webhook(timeoutSeconds=5))),
        (make_config(a, labels={"x": "1"}), make_config(a)),
    ]
    for old, new in pairs:
        assert (diff_objects(old, new) == []) == (fingerprint(old) == fingerprint(new))


OLD_TEXT = "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\n"
NEW_TEXT = "a: 1\nb: 2\nc: 30\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\ni: 9\n"


def test_yaml_text_diff_equal_texts_is_empty():
    assert yaml_text_diff(OLD_TEXT, OLD_TEXT) == []


def test_yaml_text_diff_lines_and_numbers():
    lines = yaml_text_diff(OLD_TEXT, NEW_TEXT, context=1)
    assert lines == [
        DiffLine("hunk", "@@ -2,3 +2,3 @@"),
        DiffLine("context", "b: 2", 2, 2),
        DiffLine("removed", "c: 3", 3, None),
        DiffLine("added", "c: 30", None, 3),
        DiffLine("context", "d: 4", 4, 4),
        DiffLine("hunk", "@@ -8 +8,2 @@"),
        DiffLine("context", "h: 8", 8, 8),
        DiffLine("added", "i: 9", None, 9),
    ]


def test_yaml_text_diff_agrees_with_difflib_unified_diff():
    for context in (0, 1, 3):
        ours = [
            {"hunk": "", "context": " ", "removed": "-", "added": "+"}[line.kind]
            + line.text
            for line in yaml_text_diff(OLD_TEXT, NEW_TEXT, context=context)
        ]
        theirs = list(
            difflib.unified_diff(
                OLD_TEXT.splitlines(), NEW_TEXT.splitlines(), n=context, lineterm=""
            )
        )[2:]
        assert ours == theirs


def test_side_by_side_kinds_and_numbers():
    rows = side_by_side("a\nb\nc\n", "a\nB\nc\nd\n")
    assert rows == [
        (NumberedLine(1, "a"), NumberedLine(1, "a"), "equal"),
        (NumberedLine(2, "b"), NumberedLine(2, "B"), "changed"),
        (NumberedLine(3, "c"), NumberedLine(3, "c"), "equal"),
        (None, NumberedLine(4, "d"), "added"),
    ]
    rows = side_by_side("x\ny\nz\n", "x\n")
    assert [kind for _, _, kind in rows] == ["equal", "removed", "removed"]
    assert rows[1] == (NumberedLine(2, "y"), None, "removed")


def test_side_by_side_uneven_replacement():
    rows = side_by_side("a\nold1\nold2\nz\n", "a\nnew1\nz\n")
    assert [kind for _, _, kind in rows] == ["equal", "changed", "removed", "equal"]
