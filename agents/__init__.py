"""Residents (generative agents): the mind. Cognition and reflection, the agents' events and
projections, configs and bases; the offline stand-in beside it (agents/offline). The
runtime that runs it is `runtime`."""
