"""How busy the machine was while a variant was timed, and when that makes its time suspect."""

from typing import Optional

from inspector.model import MachineLoad
from inspector.model.timing import OTHERS_BUSY, STEAL_BUSY
from inspector.raw import RawLoad, RawRecord

MIN_WINDOW_CPU_S = 0.5  # /proc/stat counts in 10 ms ticks: a shorter window (wall x CPUs) cannot tell


def run_load(record: RawRecord) -> Optional[MachineLoad]:
    """The MachineLoad over every timing window of a run: each variant's first timing and its alternating rounds
    (their CPU seconds added up), or a program's whole run, what the page's one caution about the machine reads; None
    without any."""
    windows = [v.load for v in record.variants or [] if v.load] + [
        r.load for rounds in ((record.rounds.variants if record.rounds else None) or {}).values() for r in rounds
        if r.load] + [w for w in [record.program.load if record.program else None] if w]
    return over(windows)


def over(windows: list[RawLoad]) -> Optional[MachineLoad]:
    """The MachineLoad over timing windows (their CPU seconds added up); None without any."""
    if not windows:
        return None
    cpus = max(w.cpus or 1 for w in windows)
    return machine_load(RawLoad(others_cpu_s=sum(w.others_cpu_s or 0.0 for w in windows),
                                steal_s=sum(w.steal_s or 0.0 for w in windows),
                                cpu_total_s=sum(w.cpu_total_s or 0.0 for w in windows),
                                wall_s=sum((w.wall_s or 0.0) * (w.cpus or 1) for w in windows) / cpus, cpus=cpus,
                                loadavg=[x for w in windows for x in w.loadavg or []]))


def machine_load(facts: Optional[RawLoad]) -> Optional[MachineLoad]:
    """The MachineLoad of one timing window's ``load`` facts (None when the record has none)."""
    if not facts:
        return None
    wall, cpus = facts.wall_s or 0.0, facts.cpus or 1
    long_enough = wall * cpus >= MIN_WINDOW_CPU_S
    others = facts.others_cpu_s / (wall * cpus) if facts.others_cpu_s is not None and long_enough else None
    steal = facts.steal_s / facts.cpu_total_s if facts.steal_s is not None and facts.cpu_total_s and long_enough \
        else None
    loadavg = max((x for x in facts.loadavg or [] if x is not None), default=None)
    return MachineLoad(others, steal, loadavg, cpus, others is not None and others >= OTHERS_BUSY,
                       steal is not None and steal >= STEAL_BUSY)
