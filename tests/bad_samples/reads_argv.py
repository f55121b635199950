"""A sample that reads its command line when it is imported, as a program does

It is imported as `python FILE` would run it, sys.argv holding only its path, so it takes its default (the probe's
own arguments in sys.argv made int() raise, issue 37). It has no variants: a run stops there, before torch.
"""

import sys

SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 200
if sys.argv[1:] or not sys.argv[0].endswith("reads_argv.py"):
    raise RuntimeError(f"imported with sys.argv = {sys.argv}, not [its path]")


def population(n, rng):
    return rng.random((n, 4))
