import pytest
import yaml

from tests import factories
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.kubeconfig import resolve_kubeconfig


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox(
        objects=[factories.configuration("existing", webhooks=2)]
    )
    yield sb
    sb.stop()


def sandbox_access(sb, *, readonly: bool = False):
    return resolve_kubeconfig(yaml.safe_dump(sb.kubeconfig(readonly=readonly))).access


def client_for(sb, *, readonly: bool = False, timeout: float | None = None):
    access = sandbox_access(sb, readonly=readonly)
    return KubeClient(access, name=sb.name, timeout=timeout)


@pytest.fixture
def client(sandbox):
    with client_for(sandbox) as kube:
        yield kube
