"""The runtime: what runs a simulation rather than thinks. The engines, the units of work
and their broker, staged decisions, leases, the commit and its rules, reflection jobs,
the Celery tasks, replay, and the user controls that act on a running log. It drives the
mind (`agents`) through its seams: `StepContext` in, event drafts out."""
