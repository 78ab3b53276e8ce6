"""`manage.py import_town` and `manage.py export_town`."""
