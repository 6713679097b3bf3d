"""/account/: pages about the signed-in user (API tokens)."""

from django.urls import path

from webhooks_ui.views import account

urlpatterns = [
    path("tokens/", account.api_tokens, name="account-tokens"),
    path(
        "tokens/<int:token_id>/revoke/",
        account.api_token_revoke,
        name="account-token-revoke",
    ),
]
