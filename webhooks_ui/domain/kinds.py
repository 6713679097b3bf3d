"""Names of the two webhook configuration kinds and their API group."""

GROUP = "admissionregistration.k8s.io"
VERSION_V1 = "v1"
VERSION_V1BETA1 = "v1beta1"
API_VERSION_V1 = f"{GROUP}/{VERSION_V1}"
API_VERSION_V1BETA1 = f"{GROUP}/{VERSION_V1BETA1}"

MUTATING = "MutatingWebhookConfiguration"
VALIDATING = "ValidatingWebhookConfiguration"
KINDS = (MUTATING, VALIDATING)

# REST resource (plural) for each kind, as served under /apis/<group>/<version>/.
RESOURCE_BY_KIND = {
    MUTATING: "mutatingwebhookconfigurations",
    VALIDATING: "validatingwebhookconfigurations",
}
KIND_BY_RESOURCE = {resource: kind for kind, resource in RESOURCE_BY_KIND.items()}


def is_webhook_configuration(obj: object) -> bool:
    """True when ``obj`` is a dict declaring one of the two kinds (any version)."""
    if not isinstance(obj, dict):
        return False
    api_version = obj.get("apiVersion")
    return obj.get("kind") in KINDS and api_version in (
        API_VERSION_V1,
        API_VERSION_V1BETA1,
    )


# The fields of one webhook entry, in the API reference's order (both kinds),
# and the one only mutating webhooks have.
WEBHOOK_FIELDS = (
    "name",
    "clientConfig",
    "rules",
    "failurePolicy",
    "matchPolicy",
    "namespaceSelector",
    "objectSelector",
    "sideEffects",
    "timeoutSeconds",
    "admissionReviewVersions",
    "matchConditions",
)
MUTATING_ONLY_WEBHOOK_FIELDS = ("reinvocationPolicy",)
