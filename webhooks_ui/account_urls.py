"""/account/: pages about the signed-in user (API tokens)."""

from django.urls import path

from webhooks_ui import converters
from webhooks_ui.views import account

converters.register()

urlpatterns = [
    path("tokens/", account.api_tokens, name="account-tokens"),
    path(
        "tokens/<id:token_id>/revoke/",
        account.api_token_revoke,
        name="account-token-revoke",
    ),
]
