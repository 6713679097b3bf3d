"""API views, a module per noun (as webhooks_ui.views)."""
