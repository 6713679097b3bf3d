"""Errors print exactly as kube-apiserver prints them."""

from webhooks_ui.domain import errors
from webhooks_ui.domain.errors import FieldError


def test_invalid_value_message_matches_apiserver_wording():
    error = FieldError(
        "webhooks[0].timeoutSeconds",
        errors.INVALID,
        "the timeout value must be between 1 and 30 seconds",
        31,
    )
    assert errors.invalid_message("ValidatingWebhookConfiguration", "x", [error]) == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "x" is invalid: '
        "webhooks[0].timeoutSeconds: Invalid value: 31: "
        "the timeout value must be between 1 and 30 seconds"
    )


def test_required_omits_value_and_several_errors_are_bracketed():
    first = FieldError(
        "metadata.name", errors.REQUIRED, "name or generateName is required"
    )
    second = FieldError(
        "webhooks[0].failurePolicy",
        errors.NOT_SUPPORTED,
        'supported values: "Fail", "Ignore"',
        "fail",
    )
    message = errors.invalid_message(
        "MutatingWebhookConfiguration", "", [first, second]
    )
    assert message.endswith(
        "is invalid: [metadata.name: Required value: name or generateName is required, "
        'webhooks[0].failurePolicy: Unsupported value: "fail": '
        'supported values: "Fail", "Ignore"]'
    )


def test_status_has_causes_with_field_reason_message():
    error = FieldError("webhooks[0].sideEffects", errors.REQUIRED)
    status = errors.invalid_status("MutatingWebhookConfiguration", "m", [error])
    assert status["code"] == 422 and status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value",
            "field": "webhooks[0].sideEffects",
        }
    ]
