"""Your account: API tokens (create one, see its secret once, revoke)."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from webhooks_ui.models import ApiToken
from webhooks_ui.services import tokens as tokens_service


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=100,
        help_text=_("What the token is for, e.g. “CI pipeline”."),
        widget=forms.TextInput(attrs={"class": "form-control form-control-sm"}),
    )


@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request: HttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        created = tokens_service.api_token_create(
            user=request.user, name=form.cleaned_data["name"]
        )
        form = ApiTokenForm()
    context = {
        "nav": "tokens",
        "form": form,
        "created": created,
        "tokens": tokens_service.api_tokens_of(user=request.user),
    }
    response = render(request, "account_tokens.html", context)
    # The one page that ever shows a secret: keep it out of every cache.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def api_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    get_object_or_404(ApiToken, pk=token_id, user=request.user)
    tokens_service.api_token_revoke(user=request.user, token_id=token_id)
    return redirect("account-tokens")
