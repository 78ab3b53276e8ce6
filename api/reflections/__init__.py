"""Reflection over HTTP: why a resident believes something."""
