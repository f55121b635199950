"""A ``dynamic=False`` function called on ever larger sizes (issue 30, item 2), under a recompile limit of 3 (torch's
default is 8: samples/programs/recompile_limit.py) to stay quick: torch compiles it at call 1 ([0/0]), recompiles it
at calls 2 and 3 ([0/1], [0/2]), hits the limit at call 4 with "last reason: 0/2: ... expected 3, actual 4" and runs
calls 4 and 5 eagerly; call 6, on size 2 again, passes the guards of [0/1] and runs that cached compiled code.

    python tests/programs/recompile_limit_hit.py
"""

import torch

torch._dynamo.config.recompile_limit = 3


@torch.compile(dynamic=False)
def g(x):
    return (x * 2).sum()


for n in [1, 2, 3, 4, 5, 2]:
    g(torch.randn(n))
