"""Talking to a resident over HTTP: interviews and the inner voice (whisper)."""
