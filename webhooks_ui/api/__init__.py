"""The REST API (/api/v1/): the UI's nouns, filters and services, as JSON."""
