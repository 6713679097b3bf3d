"""The API surface the sandbox advertises in discovery, as a compact table.

Modelled on a v1.33 kube-apiserver (GA groups only, as a default cluster serves)
plus a few custom resources, so webhook rules can be expanded realistically:
subresources (pods/exec, deployments/scale, namespaces/finalize, ...), cluster vs
namespaced scope, and resources served in two versions (autoscaling
horizontalpodautoscalers, gatekeeper constrainttemplates, kyverno policies) for
``matchPolicy: Equivalent``. Only the kinds in ``STORED`` are actually stored;
discovery lists the rest so that clients see a believable cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

READ = ("get", "list", "watch")
ALL_VERBS = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
)
NO_COLLECTION_DELETE = tuple(v for v in ALL_VERBS if v != "deletecollection")
CREATE_ONLY = ("create",)
GET_PATCH_UPDATE = ("get", "patch", "update")


@dataclass(frozen=True)
class Subresource:
    """``pods/exec`` and friends; ``kind_group``/``kind_version`` when the kind lives
    elsewhere (pods/eviction is a policy/v1 Eviction)."""

    name: str
    kind: str
    verbs: tuple[str, ...]
    kind_group: str | None = None
    kind_version: str | None = None


@dataclass(frozen=True)
class Resource:
    """One top-level REST resource in one group-version."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def qualified_plural(self) -> str:
        """``validatingwebhookconfigurations.admissionregistration.k8s.io``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


def _status(kind: str) -> Subresource:
    return Subresource("status", kind, GET_PATCH_UPDATE)


_SCALE = Subresource("scale", "Scale", GET_PATCH_UPDATE, "autoscaling", "v1")


def _r(
    group_version: str,
    plural: str,
    kind: str,
    *,
    namespaced: bool = True,
    verbs: tuple[str, ...] = ALL_VERBS,
    short: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    subresources: tuple[Subresource, ...] = (),
) -> Resource:
    group, _, version = group_version.rpartition("/")
    return Resource(
        group,
        version,
        plural,
        kind,
        namespaced,
        verbs,
        short,
        categories,
        subresources,
    )


_ALL = ("all",)
_CLUSTER = {"namespaced": False}

# fmt: off
# Order matters: discovery lists groups in this (priority) order and versions
# preferred-first, the way kube-apiserver does.
RESOURCES: tuple[Resource, ...] = (
    # core
    _r("v1", "bindings", "Binding", verbs=CREATE_ONLY),
    _r("v1", "componentstatuses", "ComponentStatus", verbs=("get", "list"),
       short=("cs",), **_CLUSTER),
    _r("v1", "configmaps", "ConfigMap", short=("cm",)),
    _r("v1", "endpoints", "Endpoints", short=("ep",)),
    _r("v1", "events", "Event", short=("ev",)),
    _r("v1", "limitranges", "LimitRange", short=("limits",),
       subresources=()),
    _r("v1", "namespaces", "Namespace", verbs=NO_COLLECTION_DELETE, short=("ns",),
       subresources=(Subresource("finalize", "Namespace", ("update",)),
                     _status("Namespace")), **_CLUSTER),
    _r("v1", "nodes", "Node", short=("no",),
       subresources=(Subresource("proxy", "NodeProxyOptions",
                                 ("create", "delete", "get", "patch", "update")),
                     _status("Node")), **_CLUSTER),
    _r("v1", "persistentvolumeclaims", "PersistentVolumeClaim", short=("pvc",),
       subresources=(_status("PersistentVolumeClaim"),)),
    _r("v1", "persistentvolumes", "PersistentVolume", short=("pv",),
       subresources=(_status("PersistentVolume"),), **_CLUSTER),
    _r("v1", "pods", "Pod", short=("po",), categories=_ALL, subresources=(
        Subresource("attach", "PodAttachOptions", ("create", "get")),
        Subresource("binding", "Binding", CREATE_ONLY),
        Subresource("ephemeralcontainers", "Pod", GET_PATCH_UPDATE),
        Subresource("eviction", "Eviction", CREATE_ONLY, "policy", "v1"),
        Subresource("exec", "PodExecOptions", ("create", "get")),
        Subresource("log", "Pod", ("get",)),
        Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
        Subresource("proxy", "PodProxyOptions",
                    ("create", "delete", "get", "patch", "update")),
        Subresource("resize", "Pod", GET_PATCH_UPDATE),
        _status("Pod"),
    )),
    _r("v1", "podtemplates", "PodTemplate"),
    _r("v1", "replicationcontrollers", "ReplicationController", short=("rc",),
       categories=_ALL, subresources=(
           Subresource("scale", "Scale", GET_PATCH_UPDATE, "autoscaling", "v1"),
           _status("ReplicationController"))),
    _r("v1", "resourcequotas", "ResourceQuota", short=("quota",),
       subresources=(_status("ResourceQuota"),)),
    _r("v1", "secrets", "Secret"),
    _r("v1", "serviceaccounts", "ServiceAccount", short=("sa",), subresources=(
        Subresource("token", "TokenRequest", CREATE_ONLY,
                    "authentication.k8s.io", "v1"),)),
    _r("v1", "services", "Service", verbs=ALL_VERBS, short=("svc",),
       categories=_ALL, subresources=(
           Subresource("proxy", "ServiceProxyOptions",
                       ("create", "delete", "get", "patch", "update")),
           _status("Service"))),
    # apiregistration.k8s.io
    _r("apiregistration.k8s.io/v1", "apiservices", "APIService",
       categories=("api-extensions",), subresources=(_status("APIService"),),
       **_CLUSTER),
    # apps
    _r("apps/v1", "controllerrevisions", "ControllerRevision"),
    _r("apps/v1", "daemonsets", "DaemonSet", short=("ds",), categories=_ALL,
       subresources=(_status("DaemonSet"),)),
    _r("apps/v1", "deployments", "Deployment", short=("deploy",), categories=_ALL,
       subresources=(_SCALE, _status("Deployment"))),
    _r("apps/v1", "replicasets", "ReplicaSet", short=("rs",), categories=_ALL,
       subresources=(_SCALE, _status("ReplicaSet"))),
    _r("apps/v1", "statefulsets", "StatefulSet", short=("sts",), categories=_ALL,
       subresources=(_SCALE, _status("StatefulSet"))),
    # events.k8s.io
    _r("events.k8s.io/v1", "events", "Event", short=("ev",)),
    # authentication.k8s.io / authorization.k8s.io (create-only review resources)
    _r("authentication.k8s.io/v1", "selfsubjectreviews", "SelfSubjectReview",
       verbs=CREATE_ONLY, **_CLUSTER),
    _r("authentication.k8s.io/v1", "tokenreviews", "TokenReview",
       verbs=CREATE_ONLY, **_CLUSTER),
    _r("authorization.k8s.io/v1", "localsubjectaccessreviews",
       "LocalSubjectAccessReview", verbs=CREATE_ONLY),
    _r("authorization.k8s.io/v1", "selfsubjectaccessreviews",
       "SelfSubjectAccessReview", verbs=CREATE_ONLY, **_CLUSTER),
    _r("authorization.k8s.io/v1", "selfsubjectrulesreviews",
       "SelfSubjectRulesReview", verbs=CREATE_ONLY, **_CLUSTER),
    _r("authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview",
       verbs=CREATE_ONLY, **_CLUSTER),
    # autoscaling: HPAs served as v2 (preferred) and v1, the same storage.
    _r("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler",
       short=("hpa",), categories=_ALL,
       subresources=(_status("HorizontalPodAutoscaler"),)),
    _r("autoscaling/v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler",
       short=("hpa",), categories=_ALL,
       subresources=(_status("HorizontalPodAutoscaler"),)),
    # batch
    _r("batch/v1", "cronjobs", "CronJob", short=("cj",), categories=_ALL,
       subresources=(_status("CronJob"),)),
    _r("batch/v1", "jobs", "Job", categories=_ALL, subresources=(_status("Job"),)),
    # certificates.k8s.io
    _r("certificates.k8s.io/v1", "certificatesigningrequests",
       "CertificateSigningRequest", short=("csr",), subresources=(
           Subresource("approval", "CertificateSigningRequest", GET_PATCH_UPDATE),
           _status("CertificateSigningRequest")), **_CLUSTER),
    # networking.k8s.io
    _r("networking.k8s.io/v1", "ingressclasses", "IngressClass", **_CLUSTER),
    _r("networking.k8s.io/v1", "ingresses", "Ingress", short=("ing",),
       subresources=(_status("Ingress"),)),
    _r("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy",
       short=("netpol",)),
    # policy
    _r("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", short=("pdb",),
       subresources=(_status("PodDisruptionBudget"),)),
    # rbac.authorization.k8s.io
    _r("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding",
       **_CLUSTER),
    _r("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", **_CLUSTER),
    _r("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding"),
    _r("rbac.authorization.k8s.io/v1", "roles", "Role"),
    # storage.k8s.io
    _r("storage.k8s.io/v1", "csidrivers", "CSIDriver", **_CLUSTER),
    _r("storage.k8s.io/v1", "csinodes", "CSINode", **_CLUSTER),
    _r("storage.k8s.io/v1", "storageclasses", "StorageClass", short=("sc",),
       **_CLUSTER),
    _r("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment",
       subresources=(_status("VolumeAttachment"),), **_CLUSTER),
    # admissionregistration.k8s.io
    _r("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations",
       "MutatingWebhookConfiguration", categories=("api-extensions",), **_CLUSTER),
    _r("admissionregistration.k8s.io/v1", "validatingadmissionpolicies",
       "ValidatingAdmissionPolicy", categories=("api-extensions",),
       subresources=(_status("ValidatingAdmissionPolicy"),), **_CLUSTER),
    _r("admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings",
       "ValidatingAdmissionPolicyBinding", categories=("api-extensions",),
       **_CLUSTER),
    _r("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations",
       "ValidatingWebhookConfiguration", categories=("api-extensions",),
       **_CLUSTER),
    # apiextensions.k8s.io
    _r("apiextensions.k8s.io/v1", "customresourcedefinitions",
       "CustomResourceDefinition", short=("crd", "crds"),
       categories=("api-extensions",),
       subresources=(_status("CustomResourceDefinition"),), **_CLUSTER),
    # scheduling.k8s.io, coordination.k8s.io, node.k8s.io
    _r("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", short=("pc",),
       **_CLUSTER),
    _r("coordination.k8s.io/v1", "leases", "Lease"),
    _r("node.k8s.io/v1", "runtimeclasses", "RuntimeClass", **_CLUSTER),
    # discovery.k8s.io
    _r("discovery.k8s.io/v1", "endpointslices", "EndpointSlice"),
    # flowcontrol.apiserver.k8s.io
    _r("flowcontrol.apiserver.k8s.io/v1", "flowschemas", "FlowSchema",
       subresources=(_status("FlowSchema"),), **_CLUSTER),
    _r("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations",
       "PriorityLevelConfiguration",
       subresources=(_status("PriorityLevelConfiguration"),), **_CLUSTER),
    # Custom resources, as their CRDs would register them.
    _r("cert-manager.io/v1", "certificaterequests", "CertificateRequest",
       short=("cr", "crs"), categories=("cert-manager",),
       subresources=(_status("CertificateRequest"),)),
    _r("cert-manager.io/v1", "certificates", "Certificate", short=("cert", "certs"),
       categories=("cert-manager",), subresources=(_status("Certificate"),)),
    _r("cert-manager.io/v1", "clusterissuers", "ClusterIssuer",
       categories=("cert-manager",), subresources=(_status("ClusterIssuer"),),
       **_CLUSTER),
    _r("cert-manager.io/v1", "issuers", "Issuer", categories=("cert-manager",),
       subresources=(_status("Issuer"),)),
    _r("acme.cert-manager.io/v1", "challenges", "Challenge",
       categories=("cert-manager", "cert-manager-acme"),
       subresources=(_status("Challenge"),)),
    _r("acme.cert-manager.io/v1", "orders", "Order",
       categories=("cert-manager", "cert-manager-acme"),
       subresources=(_status("Order"),)),
    _r("kyverno.io/v1", "clusterpolicies", "ClusterPolicy", short=("cpol",),
       categories=("kyverno",), subresources=(_status("ClusterPolicy"),),
       **_CLUSTER),
    _r("kyverno.io/v1", "policies", "Policy", short=("pol",),
       categories=("kyverno",), subresources=(_status("Policy"),)),
    _r("kyverno.io/v2beta1", "clusterpolicies", "ClusterPolicy", short=("cpol",),
       categories=("kyverno",), subresources=(_status("ClusterPolicy"),),
       **_CLUSTER),
    _r("kyverno.io/v2beta1", "policies", "Policy", short=("pol",),
       categories=("kyverno",), subresources=(_status("Policy"),)),
    _r("templates.gatekeeper.sh/v1", "constrainttemplates", "ConstraintTemplate",
       subresources=(_status("ConstraintTemplate"),), **_CLUSTER),
    _r("templates.gatekeeper.sh/v1beta1", "constrainttemplates",
       "ConstraintTemplate", subresources=(_status("ConstraintTemplate"),),
       **_CLUSTER),
    _r("networking.istio.io/v1", "virtualservices", "VirtualService",
       short=("vs",), categories=("istio-io", "networking-istio-io")),
    _r("networking.istio.io/v1", "destinationrules", "DestinationRule",
       short=("dr",), categories=("istio-io", "networking-istio-io")),
)
# fmt: on

CORE_GROUP_VERSION = "v1"


def group_versions() -> dict[str, list[str]]:
    """Group name → versions, preferred first, in discovery priority order."""
    groups: dict[str, list[str]] = {}
    for resource in RESOURCES:
        if not resource.group:
            continue
        versions = groups.setdefault(resource.group, [])
        if resource.version not in versions:
            versions.append(resource.version)
    return groups


def resources_in(group: str, version: str) -> list[Resource]:
    return [r for r in RESOURCES if r.group == group and r.version == version]


def find(group: str, version: str, plural: str) -> Resource | None:
    """The resource at ``/apis/<group>/<version>/<plural>`` (None: not served)."""
    for resource in RESOURCES:
        if (resource.group, resource.version, resource.plural) == (
            group,
            version,
            plural,
        ):
            return resource
    return None


def by_api_version_kind(api_version: str, kind: str) -> Resource | None:
    group, _, version = api_version.rpartition("/")
    for resource in RESOURCES:
        if (resource.group, resource.version, resource.kind) == (group, version, kind):
            return resource
    return None


# The kinds the sandbox stores and serves CRUD for; everything else in discovery
# answers 404 on access (discovery only lists it).
STORED: tuple[tuple[str, str], ...] = (
    ("v1", "Namespace"),
    ("v1", "Service"),
    ("discovery.k8s.io/v1", "EndpointSlice"),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
)


def is_stored(resource: Resource) -> bool:
    return (resource.api_version, resource.kind) in STORED
