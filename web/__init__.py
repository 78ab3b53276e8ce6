"""The web face: the landing page, login pages, and the site's own static files."""
