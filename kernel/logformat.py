"""The JSON log format (SMALLVILLE_LOG_FORMAT=json): one JSON object per line, with the
time (UTC, ISO 8601), level, logger and message, what the work is about where known
(request_id, simulation, resident, step, task: kernel/logcontext.py), and the exception's
traceback when there is one."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from kernel.logcontext import current


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **current(),
        }
        # Django logs a request's answer (django.request) after its middleware has ended:
        # the request it passes along carries its id.
        request_id = getattr(getattr(record, "request", None), "request_id", None)
        if request_id and "request_id" not in line:
            line["request_id"] = request_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)
