"""The JSON renderer's output as a JSON Schema (draft 2020-12), made from the types, never from a list of fields:
each output (a ``Renderer`` method) is its value's type (the method's parameter) and what it writes after it
(``json.EXTRAS``), as ``to_json`` writes them: a dataclass as an object of all its fields (and of the words the
renderer writes for it, ``said.WORDS``), an enum as its words, a tuple or list as an array (a fixed-length tuple item
by item), a dict as an object, ``Optional`` as the type or null. The package ships the current format's as
``schemas/analysis-N.json`` (``scripts/make-schema.py``)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from inspector.model import FORMAT
from inspector.render.base import Renderer
from inspector.render.formats import NUMBER
from inspector.render.json import EXTRAS, JsonRenderer
from inspector.render.said import WORDS

DIALECT = "https://json-schema.org/draft/2020-12/schema"
FOLDER = Path(__file__).resolve().parent.parent / "schemas"  # package data
SIMPLE = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}
Schema = dict[str, Any]
Defs = dict[str, tuple[type, Schema]]  # a type's name: the type (two of one name are refused) and its schema


def path(number: int = NUMBER) -> Path:
    """Where the package keeps format ``number``'s schema."""
    return FOLDER / f"analysis-{number}.json"


def text() -> str:
    """The current format's schema as its file holds it."""
    return json.dumps(schema(), indent=1, ensure_ascii=False) + "\n"


def schema() -> Schema:
    """The current format's schema: one of the outputs, each an object of its value's fields and its extras."""
    defs: Defs = {}
    outputs = {name: _output(name, defs) for name, f in vars(Renderer).items()
               if inspect.isfunction(f) and not name.startswith("_") and dataclasses.is_dataclass(_value(name))}
    clash = set(outputs) & set(defs)
    if clash:
        raise TypeError(f"types named as outputs: {sorted(clash)}")
    return {"$schema": DIALECT, "title": FORMAT,
            "description": "What inspector's JSON renderer prints (docs/record.md, \"The analysis\"): a sample's "
                           "report, a program's run, the breaks view or a comparison.",
            "oneOf": [{"$ref": f"#/$defs/{name}"} for name in outputs],
            "$defs": {**outputs, **{name: s for name, (_, s) in sorted(defs.items())}}}


def _output(name: str, defs: Defs) -> Schema:
    """One output: ``format``, the fields of the value its method renders, then its extras."""
    value = _value(name)
    extras = _fields(EXTRAS[name], defs) if name in EXTRAS else {}
    return _object({"format": {"const": FORMAT}, **_fields(value, defs), **extras},
                   _words(getattr(Renderer, name).__doc__))


def _value(name: str) -> Any:
    """The type of the value a renderer's method renders (``render``'s, either run's analysis: no output of its own)."""
    hints = get_type_hints(getattr(JsonRenderer, name))
    return next(t for k, t in hints.items() if k != "return")


def _fields(t: type, defs: Defs) -> dict[str, Schema]:
    """A dataclass's keys as ``to_json`` writes them for the JSON renderer: its fields, the words the renderer
    writes for them (``said.WORDS``) as those words' type, then the words' other keys."""
    hints, words = get_type_hints(t), {key: hint for key, (hint, _) in WORDS.get(t, {}).items()}
    fields = {f.name: _type(words.pop(f.name, hints[f.name]), defs) for f in dataclasses.fields(t)}
    return {**fields, **{key: _type(hint, defs) for key, hint in words.items()}}


def _object(properties: dict[str, Schema], description: Schema) -> Schema:
    """An object with exactly these keys, each always written."""
    return {"type": "object", **description, "properties": properties, "required": list(properties),
            "additionalProperties": False}


def _type(t: Any, defs: Defs) -> Schema:
    """The schema of what ``to_json`` writes for a value of type ``t``."""
    origin, args = get_origin(t), get_args(t)
    if t in SIMPLE:
        return {"type": SIMPLE[t]}
    if t is Any:
        return {}
    if isinstance(t, type) and (issubclass(t, Enum) or dataclasses.is_dataclass(t)):
        return _ref(t, defs)
    if origin in (Union, types.UnionType):
        return _union([_type(a, defs) for a in args])
    if origin is list or (origin is tuple and args[-1] is Ellipsis):
        return {"type": "array", "items": _type(args[0], defs)}
    if origin is tuple:
        return {"type": "array", "prefixItems": [_type(a, defs) for a in args], "items": False,
                "minItems": len(args)}
    if origin is dict and args[0] in (str, int):
        names = {"propertyNames": {"pattern": "^-?[0-9]+$"}} if args[0] is int else {}  # to_json: str(key)
        values = _type(args[1], defs)
        return {"type": "object", **names, **({"additionalProperties": values} if values else {})}
    raise TypeError(f"no JSON Schema for {t!r}: give inspector/render/schema.py a rule for it")


def _ref(t: type, defs: Defs) -> Schema:
    """A reference to the named type's schema, made once (a placeholder first: a type may hold itself)."""
    known = defs.get(t.__name__)
    if known is None:
        defs[t.__name__] = (t, {})
        doc = _words(None if (t.__doc__ or "").startswith(f"{t.__name__}(") else t.__doc__)  # not dataclass's own
        made = ({**doc, "enum": [m.value for m in t]} if issubclass(t, Enum)
                else _object(_fields(t, defs), doc))
        defs[t.__name__] = (t, made)
    elif known[0] is not t:
        raise TypeError(f"two types named {t.__name__}: {known[0]!r} and {t!r}")
    return {"$ref": f"#/$defs/{t.__name__}"}


def _union(members: list[Schema]) -> Schema:
    """Any of ``members``; plain types as one list of types."""
    if all(list(m) == ["type"] for m in members):
        return {"type": [m["type"] for m in members]}
    return {"anyOf": members}


def _words(doc: str | None) -> Schema:
    """A docstring as a description, on one line."""
    return {"description": " ".join(doc.split())} if doc else {}
