"""Two compiled functions whose second call compiles again (issue 30, item 5): the trace pass must trace a call that
does not compile. ``scaled``'s second call fails a guard of its cached code (a new size: checked before the call);
``shifted``'s passes its own guards but the code after its graph break recompiles (a new dtype: seen as the compile
begins, which stops the trace)."""
import torch


@torch.compile(dynamic=False)
def scaled(x):
    return torch.sin(x) * 2 + torch.cos(x)


@torch.compile
def shifted(x, y):
    a = torch.sin(x) * 2
    torch._dynamo.graph_break()
    return a + y


x = torch.randn(1000)
for n in (1000, 2000, 2000, 2000, 2000):
    scaled(torch.randn(n))
for dtype in (torch.float32, torch.float64, torch.float64, torch.float64, torch.float64):
    shifted(x, torch.randn(1000, dtype=dtype))
print("done")
