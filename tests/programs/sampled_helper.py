"""A compiled function that breaks into a helper of the program's (a loop over a tensor's items, which torch runs
eagerly) long enough for `inspector run`'s sampler to land in it while torch's frame hook is on: the sampler's own
frames, which look at the helper's tensor argument, must never be compiled as the program's, and torch's resume
function (the code after the break) is no hot function of its own.

    python tests/programs/sampled_helper.py
"""

import torch


def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        v = float(x[i])
        for _ in range(400):  # Python's own work: the sampler's time (one of the 6 hottest), few profiler events
            s += v * v
    return s


@torch.compile
def doubled_total(x):
    y = x * 2
    torch._dynamo.graph_break()  # the rest runs in torch's resume function, inside this function's frame
    return total(y)


for _ in range(3):
    doubled_total(torch.ones(2_000))
