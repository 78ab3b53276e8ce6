"""Management commands of the integration app."""
