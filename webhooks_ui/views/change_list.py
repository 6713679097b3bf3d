"""The list of change requests: awaiting my review, mine, all I can see."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from webhooks_ui.review.change_list import changes_page_build
from webhooks_ui.views.rendering import render_page


@login_required
@require_GET
@vary_on_headers("HX-Request")
def change_list(request: HttpRequest) -> HttpResponse:
    data = changes_page_build(
        user=request.user, params=request.GET, page_number=request.GET.get("page")
    )
    context = {"nav": "changes", "changes": data}
    return render_page(request, "change_list.html", context, partial="results")
