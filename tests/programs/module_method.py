"""torch.compile(module) then module.solve(...), as an ODE library's README does: only forward goes through the
compiled wrapper, so solve runs uncompiled (issue 30, item 8). Prints torch's own count of the graphs each part
compiled."""
import torch
from torch._dynamo.utils import counters


class Solver(torch.nn.Module):
    def forward(self, x):
        return self.solve(x)

    def solve(self, x):
        return torch.cumsum(x * 2, 0)


def graphs():
    return counters["stats"]["unique_graphs"]


s = torch.compile(Solver())
before, calls = graphs(), 0
for _ in range(3):
    s.solve(torch.randn(1000))
    calls += 1
print("solve calls", calls, "graphs", graphs() - before)
before = graphs()
for _ in range(3):
    s(torch.randn(1000))
print("forward calls", 3, "graphs", graphs() - before)
