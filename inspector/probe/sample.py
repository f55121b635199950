"""Load a sample file and list its variants (the sample contract, see README)."""

import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass

KINDS = ("python", "numpy", "torch")


class SampleError(Exception):
    """The sample file breaks the contract; the message is one line for the user."""


@dataclass
class Variant:
    id: str
    function: str
    kind: str
    compiled: bool
    device: str
    preview: bool = False  # the Triton codegen preview: generated for a CPU target, never run


def load(path):
    """Import the sample at ``path`` as a fresh module; messages name ``path`` as given."""
    name = "inspector_sample_" + "".join(c if c.isalnum() else "_" for c in os.path.basename(path)[:-3])
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise SampleError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise SampleError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    except Exception as e:
        raise SampleError(f"{path}: raised on import: {type(e).__name__}: {e}") from None
    if not callable(getattr(module, "population", None)):
        raise SampleError(f"{path}: no population(n, rng) function")
    return module


def describe(module):
    """Title, description and default population size from the module."""
    doc = inspect.cleandoc(module.__doc__ or "").strip()
    title, _, rest = doc.partition("\n")
    size = getattr(module, "POPULATION_SIZE", None)
    return {"title": title.strip() or module.__name__, "description": rest.strip(),
            "default_population": size if isinstance(size, int) else None}


def functions(module):
    """Top-level ``fitness_<kind>[_suffix]`` functions defined in the sample, in source order."""
    found = []
    for name, fn in vars(module).items():
        if not (name.startswith("fitness_") and inspect.isfunction(fn)) or fn.__module__ != module.__name__:
            continue
        kind = name[len("fitness_"):].split("_", 1)[0]
        if kind in KINDS:
            found.append((fn.__code__.co_firstlineno, name, kind))
    return [(name, kind) for _, name, kind in sorted(found)]


def variants(module, triton_preview=False):
    """The variant matrix: eager, compiled on CPU, and compiled on CUDA for numpy and torch functions,
    plus the Triton codegen preview of each when ``triton_preview``."""
    out = []
    for name, kind in functions(module):
        base = name[len("fitness_"):]
        out.append(Variant(base, name, kind, False, "cpu"))
        if kind != "python":
            out.append(Variant(f"{base}-compiled-cpu", name, kind, True, "cpu"))
            out.append(Variant(f"{base}-compiled-cuda", name, kind, True, "cuda"))
            if triton_preview:
                out.append(Variant(f"{base}-triton-preview", name, kind, True, "cpu (Triton preview)", True))
    return out
