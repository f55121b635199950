"""inspector: see what torch.compile did to your numerical Python code, and what it cost.

Layout (collector -> data -> reporters):
- ``inspector.probe``: runs inside the target interpreter (stdlib, numpy, torch only) and writes raw facts;
- ``inspector.record``: the versioned JSON record those facts become;
- ``inspector.analysis``: kernels, verdicts and line maps derived from a record alone;
- ``inspector.render``: HTML, text and JSON renderers (never import torch);
- ``inspector.cli``: the typer command line.
"""

__version__ = "0.1.0"
