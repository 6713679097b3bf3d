from django.apps import AppConfig


class WebhooksUiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks_ui"
    verbose_name = "Admission webhooks"

    def ready(self) -> None:
        # Sign-in events go to the audit log.
        from webhooks_ui.services import audit  # noqa: F401
