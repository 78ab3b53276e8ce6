"""Password hashing for the test process: Django's PBKDF2 with one iteration.

A user's password hashed as in production takes 0.4 s of CPU (a million iterations);
the suite makes a user in most of its API tests. The hash keeps production's format and
algorithm (`pbkdf2_sha256$1$...`), so the servers and workers a test starts, which hash
as in production, check these passwords too (and store them again with their own
iterations at a login)."""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class OneIterationPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
