"""Residents over HTTP: list, detail, and a newcomer stepping in."""
