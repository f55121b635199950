"""Renderers: read a record, never import torch."""
