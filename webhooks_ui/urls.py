"""URLs of the dashboard app."""

from django.contrib.auth import views as auth_views
from django.urls import path

from webhooks_ui.views import overview

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", overview.overview, name="overview"),
]
