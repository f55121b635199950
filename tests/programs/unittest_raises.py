"""A compiled function raising inside unittest, with torch's graph-break log turned on by the program itself: its
tracebacks and torch's "User code traceback" must be the bare run's (issue 30, item 7)."""
import unittest

import torch

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


unittest.main()
