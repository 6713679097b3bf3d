"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("webhooks_ui.urls")),
    path("api/", include("webhooks_ui.api.urls")),
    path("account/", include("webhooks_ui.account_urls")),
]
