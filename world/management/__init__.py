"""Management commands of the world app."""
