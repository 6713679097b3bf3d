"""A loopback HTTPS server that behaves like kube-apiserver for what the dashboard uses.

No real API server can run where the dashboard is developed and tested, so this
package serves discovery, the two admission webhook configuration kinds and a
few core resources over TLS with bearer-token auth. Start one with
``webhooks_ui.sandbox.server.SandboxServer`` or ``manage.py sandbox serve``.

This package may import ``webhooks_ui.domain`` but never Django.
"""
