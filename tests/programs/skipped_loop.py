"""A CRC-style bit loop (issue 40, items 1 and 2): a data-dependent `if` on a tensor inside a Python `for` loop makes
Dynamo give up on the whole frame ("frame skipped"): every call runs eagerly. The break's own hints are torch's for
the `if` (`torch.cond`, ...), not those of the "graph break in loop" message that follows it.

    python tests/programs/skipped_loop.py
"""

import torch


@torch.compile
def crc16(data):
    crc = torch.tensor(0xFFFF, dtype=torch.int64)
    for b in data:
        crc = crc ^ b
        if crc & 1:
            crc = (crc >> 1) ^ 0xA001
        else:
            crc = crc >> 1
    return crc


data = torch.arange(32) % 256
for _ in range(3):
    crc16(data)
