"""The rewriter's values as JSON and back (``to_json``, ``from_json``): a Rewrite goes to the probe, which checks it,
and into the record (``inspector.raw.RawRewrite`` has its fields under the same names), as does a Check."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def to_json(value: Any) -> Any:
    """A rewriter's value as JSON: dataclasses as objects, enums as their values, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_json(x) for x in value]
    return value


def from_json(cls: type[T], data: dict[str, Any]) -> T:
    """The dataclass ``cls`` from ``data`` (``to_json``'s), keys it does not have ignored."""
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _read(hints[f.name], data[f.name]) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                  if f.name in data})


def _read(hint: Any, value: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return None if value is None else _read(next(a for a in args if a is not type(None)), value)
    if origin is tuple:
        return tuple(_read(args[0], x) for x in value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return from_json(hint, value)
    return value
