"""`manage.py make_token`."""
