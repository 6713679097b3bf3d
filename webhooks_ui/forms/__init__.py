"""Django forms of the UI (forms convert and render; rules live in domain/)."""
