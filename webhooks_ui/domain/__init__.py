"""Kubernetes admission-webhook rules as pure Python.

Nothing in this package may import Django, the kubernetes client, or do I/O:
tests/domain/test_layering.py enforces it.
"""
