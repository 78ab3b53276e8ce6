"""Experiments over HTTP: define, start, pause, resume, cancel; progress and results."""
