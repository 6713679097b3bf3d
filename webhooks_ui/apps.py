from django.apps import AppConfig


class WebhooksUiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks_ui"
    verbose_name = "Admission webhooks"
