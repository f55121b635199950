"""Renderers: HTML (jinja2 + pygments), text (rich) and JSON, each a ``base.Renderer`` over typed values.

They read ``inspector.model`` values only, and never import torch.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, Literal, overload

from inspector import RenderPackage
from inspector.render.base import Renderer

if TYPE_CHECKING:
    from inspector.render.html import HtmlRenderer

# format name -> (module, class): each imported when first asked for (most of the command line's start otherwise)
FORMATS = {"html": ("inspector.render.html", "HtmlRenderer"), "text": ("inspector.render.text", "TextRenderer"),
           "json": ("inspector.render.json", "JsonRenderer")}


@overload
def renderer(name: Literal["html"], **options: Any) -> HtmlRenderer: ...
@overload
def renderer(name: str, **options: Any) -> Renderer: ...


def renderer(name: str, **options: Any) -> Renderer:
    """The renderer for a format name: html, text or json."""
    module, cls = FORMATS[name]
    made: Renderer = getattr(importlib.import_module(module), cls)(**options)
    return made


sys.modules[__name__].__class__ = RenderPackage  # called, the API's render, whose name this package's import takes
