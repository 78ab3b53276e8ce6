"""Settings, all read from the environment (docs/configuration.md), one module per topic.

`DJANGO_SETTINGS_MODULE = "smallville_project.settings"` names this package: it gathers
the topics' settings. Each value is read strictly (smallville_project/environment.py): a
value not of its kind stops the start with the variable named. Importing the settings
starts nothing: the embedded database starts at the first connection (database.py).
"""

from __future__ import annotations

from .api import *  # noqa: F403
from .base import *  # noqa: F403
from .cache_broker import *  # noqa: F403
from .database import *  # noqa: F403
from .llm import *  # noqa: F403
from .logging import *  # noqa: F403
from .observability import *  # noqa: F403
from .runtime import *  # noqa: F403
from .streams import *  # noqa: F403
from .web import *  # noqa: F403
from .webhooks import *  # noqa: F403
