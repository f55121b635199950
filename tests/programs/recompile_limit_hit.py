"""A ``dynamic=False`` function called on sizes 1 to 10 (issue 30, item 2): torch recompiles it at calls 2-8 ([0/1] to
[0/7]), hits its recompile limit (8) at call 9 with "last reason: 0/7: ... expected 8, actual 9", and runs calls 9 and
10 eagerly; call 11, on size 3 again, passes the guards of [0/2] and runs that cached compiled code.

    python tests/programs/recompile_limit_hit.py
"""

import torch


@torch.compile(dynamic=False)
def g(x):
    return (x * 2).sum()


for n in [*range(1, 11), 3]:
    g(torch.randn(n))
