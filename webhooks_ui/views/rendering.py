"""The one place that decides between a whole page and one of its partials."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def render_page(
    request: HttpRequest, template: str, context: dict, *, partial: str
) -> HttpResponse:
    """``template`` for a normal request; ``template#partial`` for an htmx request
    that is not boosted (htmx swaps that region in place)."""
    if request.htmx and not request.htmx.boosted:
        template = f"{template}#{partial}"
    return render(request, template, context)
