"""Residents (generative agents): identity, state, cognition, language models, the tick."""
