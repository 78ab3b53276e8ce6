"""The memory stream: memories with embeddings, retrieval, and the embedding cache."""
