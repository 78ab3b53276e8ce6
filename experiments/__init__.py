"""Experiments: many runs of one question (variants x seeds), their measures and intervals."""
