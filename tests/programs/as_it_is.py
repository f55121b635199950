"""A program run as it is (issue 30, item 7): it prints what Python gives it (its __file__, loader, spec, argv, path
and environment), turns torch's graph-break log on itself, and its compiled function raises inside unittest. Under
`inspector run`, its stdout, its exit status and its stderr (unittest's traceback, torch's "User code traceback")
must be the bare run's, inspector's summary after them.

    python tests/programs/as_it_is.py one
"""
import os
import sys
import unittest

import torch

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
print("__file__", __file__)
print("__loader__", type(__loader__).__name__, __loader__.name, __loader__.path)
print("__spec__", __spec__, "__package__", __package__, "__name__", __name__)
print("argv", sys.argv)
print("path0", sys.path[0], "checkout on the path", any(p.rstrip("/") == CHECKOUT for p in sys.path))
print("PYTHONPATH", os.environ.get("PYTHONPATH"), "TORCH_TRACE", os.environ.get("TORCH_TRACE"), flush=True)
torch._logging.set_logs(graph_breaks=True)


@torch.compile
def shifted(x):
    y = x + 1
    if y.sum() > 2:  # a data-dependent branch: a graph break
        raise ValueError("too large")
    return y


class Shifted(unittest.TestCase):  # unittest runs them in the order of their names
    def test_1_compiles(self):
        self.assertEqual(shifted(-torch.ones(3)).shape, (3,))

    def test_2_raises(self):  # the call after the first compile: the one inspector traces, unless it compiles
        shifted(torch.ones(3))

    def test_3_steady(self):
        for _ in range(3):
            self.assertEqual(shifted(-torch.ones(3)).shape, (3,))


unittest.main(argv=sys.argv[:1])
