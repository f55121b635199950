"""Loads in generated kernels and whether they are strided: the one definition C++ and Triton share.

A load is strided when neighbouring iterations of the innermost index read elements more than one apart:
its index has no bare index-variable term (``x1``: stride 1) and some term scales an index variable by more
than one (``3L*x0`` in C++, ``3*x0`` in Triton). ``x1 + 1000L*x0`` is not strided: its inner index steps by 1.
"""

from __future__ import annotations

import re

# C++: in_ptr0[static_cast<int64_t>(1L + 3L*x0)] (torch 2.1: static_cast<long>(... i0)), and the vector form
# at::vec::Vectorized<double>::loadu(in_ptr0 + static_cast<int64_t>(x0), 16)
CPP_LOAD = re.compile(r"\b(in_ptr\d+|in_out_ptr\d+)\[static_cast<(?:int64_t|long)>\(([^\]]*)\)\]")
CPP_VECTOR_LOAD = re.compile(
    r"loadu\((in_ptr\d+|in_out_ptr\d+) \+ static_cast<(?:int64_t|long)>\(((?:[^()]|\([^()]*\))*)\)")
# Triton: tl.load(in_ptr0 + (1 + 3*x0), xmask, ...) or tl.load(in_ptr0 + x0, ...): pointer, index, mask
TRITON_LOAD = re.compile(r"tl\.load\((\w+) \+ (\((?:[^()]|\([^()]*\))*\)|[\w*]+)(?:,\s*([^,)]*mask\b[^,)]*))?")
INDEX_VARIABLE = re.compile(r"[a-z]\w*")
SCALED = re.compile(r"\(?(\d+)L?\*([a-z]\w*)\)?")


def strided(index: str) -> bool:
    """Whether a load index steps by more than one element between neighbouring iterations."""
    terms = [t.strip().strip("()") for t in index.split("+")]
    if any(INDEX_VARIABLE.fullmatch(t) for t in terms):
        return False
    return any(int(m.group(1)) > 1 for t in terms if (m := SCALED.fullmatch(t)))


def cpp_loads(code: str) -> list[tuple[str, str]]:
    """[(pointer, index)] of the loads of a C++ kernel, scalar and vector (none without a pointer: the patterns' slow
    search skipped on most lines of a kernel)."""
    if "_ptr" not in code:
        return []
    return [(ptr, index.strip()) for pattern in (CPP_LOAD, CPP_VECTOR_LOAD) for ptr, index in pattern.findall(code)]


def triton_loads(code: str) -> list[tuple[str, str, str]]:
    """[(pointer, index, mask or "")] of a Triton kernel's loads (the index without its parentheses)."""
    return [(ptr, index[1:-1] if index.startswith("(") else index, mask)
            for ptr, index, mask in TRITON_LOAD.findall(code)]


def strided_cpp(code: str, found: list[tuple[str, str]] | None = None) -> list[str]:
    """The distinct strided loads of C++ ``code`` (or of its loads ``found`` by ``cpp_loads``) as ``ptr[index]``."""
    return sorted({f"{ptr}[{index}]" for ptr, index in (cpp_loads(code) if found is None else found)
                   if strided(index)})


def strided_triton(code: str) -> list[str]:
    """The distinct strided loads of Triton ``code`` as ``ptr + (index)``."""
    return sorted({f"{ptr} + ({index})" for ptr, index, _ in triton_loads(code) if strided(index)})
