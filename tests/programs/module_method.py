"""torch.compile(module) then module.solve(...): only forward goes through the compiled wrapper (issue 30, item 8)."""
import torch


class Solver(torch.nn.Module):
    def forward(self, x):
        return self.solve(x)

    def solve(self, x):
        return torch.cumsum(x * 2, 0)


s = torch.compile(Solver())
for _ in range(3):
    s.solve(torch.randn(1000))
for n in (100, 200, 200, 200):
    s(torch.randn(n))
print("done")
