"""Cluster API access: the only package that imports the ``kubernetes`` client."""
