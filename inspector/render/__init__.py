"""Renderers: HTML (jinja2 + pygments), text (rich) and JSON, each a ``base.Renderer`` over typed values.

They read ``inspector.model`` values only, and never import torch.
"""

from typing import Any, Literal, overload

from inspector.render.base import Renderer
from inspector.render.html import HtmlRenderer
from inspector.render.json import JsonRenderer
from inspector.render.text import TextRenderer

FORMATS: dict[str, type[Renderer]] = {"html": HtmlRenderer, "text": TextRenderer, "json": JsonRenderer}


@overload
def renderer(name: Literal["html"], **options: Any) -> HtmlRenderer: ...
@overload
def renderer(name: str, **options: Any) -> Renderer: ...


def renderer(name: str, **options: Any) -> Renderer:
    """The renderer for a format name: html, text or json."""
    return FORMATS[name](**options)
