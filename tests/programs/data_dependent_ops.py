"""Breaks from operators whose result depends on the data (issue 40 item 3): torch.bincount, whose output length
follows the largest value (torch's fix is not a mask's), and slice bounds read out of a tensor (a CSR matrix's rows:
a slice needs Python ints)."""
import torch


@torch.compile
def histogram(genes):
    counts = torch.bincount(genes)
    return counts.float() / genes.numel()


@torch.compile
def row_sums(values, ptr):
    sums = []
    for i in range(ptr.numel() - 1):
        sums.append(values[ptr[i]:ptr[i + 1]].sum())
    return torch.stack(sums)


genes = torch.randint(0, 8, (1000,))
values, ptr = torch.rand(12), torch.tensor([0, 3, 7, 12])
for _ in range(3):
    histogram(genes)
    row_sums(values, ptr)
