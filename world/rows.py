"""Model rows read by a fixed SQL statement: the ORM's instances, with its field
conversions, without building a query each time.

Building an ORM query costs about a millisecond of Python (the database answers these in
a few hundredths of one), and the engine asks some of them for every resident of every
step. A `RowReader` is built once, at import, with its WHERE clause in SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


class RowReader(Generic[M]):
    """`reader(params)` -> the model's instances of the rows `where` selects (its fields,
    or `fields` only: the others are deferred, read when used)."""

    def __init__(
        self,
        model: type[M],
        *,
        where: str,
        order: str = "",
        fields: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
    ) -> None:
        chosen = [
            f
            for f in model._meta.concrete_fields
            if (fields is None or f.name in fields or f.primary_key) and f.name not in exclude
        ]
        self.model = model
        self.attnames = [f.attname for f in chosen]
        columns = ", ".join(connection.ops.quote_name(f.column or f.attname) for f in chosen)
        self.sql = f"SELECT {columns} FROM {model._meta.db_table} WHERE {where}"
        if order:
            self.sql += f" ORDER BY {order}"
        self.converters: list[tuple[int, Callable[..., Any]]] = [
            (i, f.from_db_value) for i, f in enumerate(chosen) if hasattr(f, "from_db_value")
        ]

    def __call__(self, params: Sequence[Any]) -> list[M]:
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        found = []
        for row in rows:
            values = list(row)
            for i, convert in self.converters:
                values[i] = convert(values[i], None, connection)
            found.append(self.model.from_db(connection.alias, self.attnames, values))
        return found
