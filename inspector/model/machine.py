"""What the C++ compiler made of a kernel: its machine code's instruction counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class MachineCode:
    """What the C++ compiler made of a kernel, or of the functions that hold one of its loop nests: instruction counts
    of the shared object Inductor loaded (``objdump``; the classes are ``inspector/probe/machine.py``'s).

    ``simd``: ``packed`` (packed SIMD arithmetic, at least a quarter as much as scalar arithmetic, or a call to
    vectorized math), ``mixed`` (some packed arithmetic among much more scalar: a few operations combined, not
    decided either way), ``scalar`` (neither, and no register wider than xmm), ``moves`` (SIMD data moves on ymm/zmm
    registers only: not decided either way).
    """

    PACKED_SHARE = 0.25  # packed arithmetic against scalar arithmetic, from which the code counts as vectorized

    # what was counted: symbols (kernel, kernel._omp_fn.N), or a nest's "lines A-B" (line table)
    functions: tuple[str, ...]
    instructions: int
    packed_fp: int  # packed floating-point arithmetic, compares, conversions (vaddpd, vfmadd231pd, vcmppd)
    scalar_fp: int  # scalar ones (vaddsd, vmulss, vucomisd)
    packed_int: int  # packed integer arithmetic and compares (vpaddq, vpcmpeqd)
    simd_data: int  # SIMD moves, shuffles, blends and logic
    gathers: int
    register: Optional[str]  # the widest SIMD register used: zmm, ymm or xmm
    vector_math: tuple[tuple[str, int], ...]  # (vectorized math function, calls): Sleef
    scalar_math: tuple[tuple[str, int], ...]  # (libm function, calls): one element per call
    unclassified: tuple[tuple[str, int], ...]  # (mnemonic, count): in no class, counted, not guessed

    @property
    def simd(self) -> str:
        packed = self.packed_fp + self.packed_int
        if self.vector_math or (packed and packed >= self.PACKED_SHARE * self.scalar_fp):
            return "packed"
        if packed:
            return "mixed"
        return "moves" if self.register in ("ymm", "zmm") else "scalar"

    @property
    def decides(self) -> bool:
        """Whether it says by itself whether the code is vectorized (packed or scalar only)."""
        return self.simd in ("packed", "scalar")

    def overrules(self, vectorized: Optional[bool]) -> bool:
        """Whether it says the opposite of Inductor's code (``vectorized``: that code is ``at::vec``)."""
        return self.decides and (self.simd == "packed") != bool(vectorized)

    def describe(self) -> str:
        """'packed SIMD (zmm): 24 packed FP, 6 scalar FP; calls Sleef_cosd8_u10 x2' and the like."""
        head = {"packed": f"packed SIMD ({self.register})", "scalar": "scalar only",
                "mixed": f"some packed SIMD ({self.register})",
                "moves": f"no packed arithmetic, SIMD moves on {self.register}"}[self.simd]
        counts = [f"{n} {what}" for n, what in ((self.packed_fp, "packed FP"), (self.packed_int, "packed int"),
                                                (self.scalar_fp, "scalar FP"), (self.gathers, "gathers")) if n]
        calls = [f"{name} x{n}" for name, n in self.vector_math + self.scalar_math]
        return f"{head}: {', '.join(counts) or 'no FP arithmetic'}" + (f"; calls {', '.join(calls)}" if calls else "")
