"""A Triton kernel's source: its heuristic, loads and masks, and what it fixes about its launch."""

from __future__ import annotations

import ast
import re
from typing import Optional

from inspector.analysis.parse import KernelFacts, loads
from inspector.model import Evidence, TritonLaunch, Unread, UnreadKind
from inspector.raw import JSON

KIND = re.compile(r"@triton_heuristics\.(\w+)")
SIZE_HINTS = re.compile(r"size_hints=(\{[^}]*\})")
GRID_DIMENSIONS = {"Grid1D": "x", "Grid2D": "xy", "Grid3D": "xyz"}


def facts(code: str) -> tuple[KernelFacts, list[Unread]]:
    """The kernel's properties (the ``Kernel`` fields a Triton kernel fills) and what was not understood."""
    kind = KIND.search(code)
    found = loads.triton_loads(code)
    unread = code.count("tl.load(") - len(found)
    problems = [Unread(UnreadKind.TRITON_LOADS, counts=(unread, code.count("tl.load(")))] if unread else []
    return KernelFacts(
        kind=kind.group(1) if kind else "unknown",
        parallel_regions=1,
        vectorized=None,
        ops=len(re.findall(r"^\s*tmp\d+ =", code, re.M)),
        loads=code.count("tl.load("),
        strided_loads=loads.strided_triton(code),
        masked_loads=sum(1 for *_, mask in found if mask),
        evidence=evidence(code),
        triton=launch(code),
    ), problems


def evidence(code: str) -> list[Evidence]:
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        what = ("Triton grid (program_id)" if "tl.program_id" in line
                else "strided load" if loads.strided_triton(line)
                else "masked load" if re.search(r"tl\.load\(.*mask", line)
                else "tl.where" if "tl.where" in line else None)
        if what:
            found.append(Evidence(number, what))
    return found


def launch(code: str, config: Optional[JSON] = None) -> TritonLaunch:
    """What the source fixes about the launch (size hints, grid type, target, numels, block sizes, warps), and
    with ``config`` (the autotuned launch config of a run) the grid it ran with."""
    hints = SIZE_HINTS.search(code)
    try:
        size_hints = ast.literal_eval(hints.group(1)) if hints else None
    except (ValueError, SyntaxError):
        size_hints = None
    grid_type = re.search(r"'grid_type': '(\w+)'", code)
    target = re.search(r"DeviceProperties\(type='(\w+)'", code)
    warps = re.search(r"num_warps['\"]?\s*[:=]\s*(\d+)", code)
    numels = {k: int(v) for k, v in re.findall(r"^\s*(\w*numel) = (\d+)$", code, re.M)}
    blocks = {k: int(v) for k, v in re.findall(r"^\s*(\w*BLOCK)\s*:\s*tl\.constexpr\s*=\s*(\d+)", code, re.M)}
    grid: Optional[list[int]] = None
    if config:
        tuned = dict(blocks, **{n: v for n, v in config["kwargs"].items() if n.endswith("BLOCK")})
        dims = GRID_DIMENSIONS.get(grid_type.group(1) if grid_type else "", "")
        sizes = [numels[f"{d}numel"] for d in dims if f"{d}numel" in numels]
        if dims and len(sizes) == len(dims):
            grid = [-(-n // tuned.get(f"{d.upper()}BLOCK", 1)) for d, n in zip(dims, sizes)]
    return TritonLaunch(size_hints=size_hints, grid_type=grid_type and grid_type.group(1),
                        target=target and target.group(1), numels=numels, blocks=blocks,
                        num_warps=int(warps.group(1)) if warps else None, config=config, grid=grid)
