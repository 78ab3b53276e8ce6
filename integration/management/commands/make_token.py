"""`manage.py make_token USER --name NAME`: make an API token for a user from the shell, as
the web face's "Your API tokens" page and `POST /api/tokens/` do: its key (`sv_...`) is
printed this once, alone on standard output, so a script can take it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from integration.services import TokenRefused, api_token_create


class Command(BaseCommand):
    help = "Make an API token for USER and print its key (shown this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the user the token acts as")
        parser.add_argument(
            "--name", required=True, help="what the token is for, unique among the user's"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        if not user.is_active:
            raise CommandError(f"user {username!r} is not active: a token would be refused")
        try:
            made = api_token_create(user=user, name=options["name"])
        except TokenRefused as refused:
            raise CommandError(f"{refused.field}: {refused}") from None
        self.stderr.write(f"Token {made.token.name!r} made for {username}; its key, shown once:")
        self.stdout.write(made.key)
