import pytest

from tests import factories


@pytest.fixture
def sandbox():
    sb = factories.start_sandbox(
        "alpha",
        objects=[
            factories.configuration("checks", webhooks=2),
            factories.configuration(
                "mutate", kind="MutatingWebhookConfiguration", failure_policy="Ignore"
            ),
        ],
    )
    yield sb
    sb.stop()


@pytest.fixture
def cluster(sandbox):
    return factories.sandbox_cluster(sandbox)
