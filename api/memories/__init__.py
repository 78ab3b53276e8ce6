"""Memory streams over HTTP: a resident's memories, their evidence, retrieval."""
