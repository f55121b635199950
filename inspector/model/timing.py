"""How long a variant took, how busy the machine was meanwhile, and the alternating rounds it was timed in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from inspector.model.code import CompilePhases
from inspector.model.words import Unmeasured

OTHERS_BUSY = 0.2  # other processes using this share of all CPUs contend with a variant's threads (a busy machine)
STEAL_BUSY = 0.05  # the hypervisor stealing this share of the CPUs makes a machine busy too


@dataclass(frozen=True)
class BreakEven:
    """Calls after which compiling paid off against the fastest eager variant; ``calls`` None: never."""

    calls: Optional[float]


@dataclass(frozen=True)
class MachineLoad:
    """How busy the machine was while a variant was timed (None: unknown: no /proc, or a window too short for
    /proc's 10 ms ticks)."""

    others_share: Optional[float]  # of all CPUs' time, the share other processes used
    steal_share: Optional[float]  # of all CPUs' time, the share the hypervisor stole
    loadavg: Optional[float]  # the 1-minute load average, the higher of its start and end (this run included)
    cpus: Optional[int]
    others_busy: bool = False  # other processes used enough of the CPUs to contend with its threads
    steal_busy: bool = False  # the hypervisor stole enough of their time
    # its words (inspector/render/said.py; the JSON writes them as ``busy``, why the timing is suspect, in one
    # sentence, null when the machine was quiet or unknown, and ``why``, its clauses)

    @property
    def busy(self) -> bool:
        """Whether the timing is suspect: the machine was busy."""
        return self.others_busy or self.steal_busy


@dataclass(frozen=True)
class Transfer:
    """A CUDA variant's copies of the population to the device and of its output back, timed once (seconds)."""

    to_device_s: Optional[float]
    to_device_bytes: Optional[int]
    to_host_s: Optional[float]  # None: no output to copy back
    to_host_bytes: Optional[int]


@dataclass(frozen=True)
class WarmCompile:
    """A compiled variant's compile on a rerun: compiled again in a fresh process with torch's caches as an earlier
    process left them, in inspector's own cache folder (``cache_dir``), never the user's. ``compile_s``: torch's compile
    time there (else the first call minus the steady one); ``phases``: by phase, with the caches' outcomes;
    ``processes``: 2 where the first filled the caches; ``compiler_start_s``: what that process's first compile paid
    once, to load torch's compiler and its kernel loader (measured apart); ``error``: why it was not measured (what the
    probe caught, or an Unmeasured whose words the JSON writes; the rest None); ``during_run``: measured in the run
    itself, torch having found all its graphs in its caches there."""

    compile_s: Optional[float]
    first_call_s: Optional[float]
    steady_s: Optional[float]
    phases: Optional[CompilePhases]
    processes: int
    cache_dir: Optional[str]
    compiler_start_s: Optional[float] = None
    error: Optional[Union[Unmeasured, str]] = None
    during_run: bool = False


@dataclass(frozen=True)
class Timing:
    """A variant's timed runs, and what they mean for the whole population: its median scaled to it
    (``per_population_s``; ``scale``: the population over the ``measured_population`` individuals timed), its
    compile time (torch's, else the first call minus the median), each alternating round's median (``rounds_s``),
    how busy the machine was meanwhile (``load``), and a CUDA variant's copies to and from the device (``transfer``,
    timed once), and its compile on a rerun, with torch's caches warm (``warm``: None where not measured)."""

    median_s: float
    min_s: float
    max_s: float
    runs: int
    number: int
    first_call_s: Optional[float]
    samples_s: tuple[float, ...]
    per_population_s: float
    compile_s: Optional[float]
    rounds_s: dict[int, float]  # {round: median of that round, per population} (Rounds)
    scale: float  # min_s and max_s times it are per population
    measured_population: Optional[int]  # None: the whole population
    load: Optional[MachineLoad]
    transfer: Optional[Transfer]
    warm: Optional[WarmCompile] = None

    @property
    def per_population_range(self) -> tuple[float, float]:
        """(fastest, slowest) run scaled to the whole population, as per_population_s is."""
        return self.min_s * self.scale, self.max_s * self.scale


@dataclass(frozen=True)
class Speedups:
    """How many times faster a variant ran than its family's fastest eager Python and NumPy variants (the ratio of
    the times their rows show), with the lowest and highest of the rounds' side-by-side ratios where both were timed
    in the same alternating rounds, and its break-even against the fastest eager NumPy or torch variant, with its
    compile as measured (cold: torch's caches off) and on a rerun (``warm_break_even``: torch's caches warm; None
    where not measured)."""

    vs_python: Optional[float] = None
    vs_numpy: Optional[float] = None
    vs_python_spread: Optional[tuple[float, float]] = None
    vs_numpy_spread: Optional[tuple[float, float]] = None
    break_even: Optional[BreakEven] = None
    warm_break_even: Optional[BreakEven] = None


@dataclass(frozen=True)
class Rounds:
    """The variants timed again in alternating rounds after the run, taking turns with the other runs of one
    comparison (``session``) so that all saw the same machine."""

    session: str
    runs: int  # how many runs took turns
    position: int  # this run's place in the turns (0: first)
    count: int  # rounds asked for
    budget_s: float  # seconds per variant per round
