"""A compiled function that breaks into a helper of the program's (a loop over a tensor's items, which torch runs
eagerly) long enough for `inspector run`'s sampler to land in it while torch's frame hook is on: the sampler's own
frames, which look at the helper's tensor argument, must never be compiled as the program's.

    python tests/programs/sampled_helper.py
"""

import torch


def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        v = float(x[i])
        for _ in range(200):  # Python's own work: the sampler's time, few of the profiler's events
            s += v * v
    return s


@torch.compile
def doubled_total(x):
    return total(x * 2)


for _ in range(3):
    doubled_total(torch.ones(2_000))
