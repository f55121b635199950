"""Renderers: HTML (jinja2 + pygments), text (rich) and JSON, each a ``base.Renderer`` over typed values.

They read ``inspector.model`` values only, and never import torch.
"""
