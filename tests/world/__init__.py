"""Tests of the world app: town import/export and paths."""
