"""Bases: what a simulation starts from (a town, a start time, residents), stored as rows
(`world.models.Base`), read and written as base files (`format`); the shipped ones come
from the reference implementation's files (`reference`)."""

from __future__ import annotations

from .format import BaseInvalid
from .reference import BASES, Base, Persona, UnknownBase, base_load

__all__ = ["BASES", "Base", "BaseInvalid", "Persona", "UnknownBase", "base_load"]
