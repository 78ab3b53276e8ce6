"""The shared kernel: small, dependency-free pieces every app shares, and nothing else.

It owns the process's thread pools (`pools`), the circuit breakers that answer at once
while the database or the shared cache is down (`breaker`), rates counted in the shared
cache (`rates`) and the failed authentications counted with them (`auth_failures`), and
the request body limit of a route (`limits`). It sits below every app: it imports Django,
Redis and its own modules only, no app and not the project package (`smallville_project`,
the composition root at the top), so any app may import it.
"""
