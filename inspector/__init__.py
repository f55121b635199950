"""inspector: see what torch.compile did to your numerical Python code, and what it cost.

Layout (probe -> record -> analysis -> renderers):
- ``inspector.probe``: runs inside the target interpreter (stdlib, numpy, torch only) and streams raw facts;
- ``inspector.collect``: runs the probe in child processes and turns its facts into a raw record;
- ``inspector.record``: the versioned JSON record (raw facts only);
- ``inspector.model``: the typed values analysis derives and renderers read (no torch);
- ``inspector.analysis``: kernels, verdicts, breaks and costs derived from a record alone;
- ``inspector.render``: HTML, text and JSON renderers behind one interface (never import torch);
- ``inspector.cli``: the typer command line;
- ``inspector.api``: ``capture()`` and ``inspect()``, the same reports from Python (torch imported only when used).
"""

__version__ = "0.2.0"


def capture(name="capture"):
    """Track what torch.compile does inside a ``with`` block; see ``inspector.api.capture``."""
    from inspector import api
    return api.capture(name)


def inspect(fn, *args, budget=1.0, **kwargs):
    """Compile ``fn``, time it eager and compiled on ``args``, and report what compiled; see ``inspector.api``."""
    from inspector import api
    return api.inspect(fn, *args, budget=budget, **kwargs)
