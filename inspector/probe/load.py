"""How busy the machine was while something was timed (CPU time the other processes used, CPU steal, the load
average), and this process's peak memory, from Linux's /proc (standard library only). Where there is no /proc,
every figure is None.
"""

import os
import time
from collections.abc import Callable
from typing import Any, Optional, TypeVar

T = TypeVar("T")

# /proc/stat's cpu line: user nice system idle iowait irq softirq steal (guest time is inside user)
BUSY = (0, 1, 2, 5, 6)
STEAL = 7


def snapshot() -> dict[str, Any]:
    """The machine's counters now (raw): {"wall", "own_cpu", "busy", "steal", "total", "loadavg", "cpus"}."""
    out = {"wall": time.perf_counter(), "own_cpu": time.process_time(), "cpus": os.cpu_count(),
           "busy": None, "steal": None, "total": None, "loadavg": None}
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
        hz = os.sysconf("SC_CLK_TCK")
        out.update(busy=sum(fields[i] for i in BUSY) / hz, steal=fields[STEAL] / hz, total=sum(fields) / hz)
    except (OSError, ValueError, IndexError):
        pass
    try:
        out["loadavg"] = os.getloadavg()[0]
    except OSError:
        pass
    return out


def between(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The raw load facts of the interval between two snapshots: wall seconds, CPU seconds of the other processes
    (all CPU time used on the machine less this process's), steal seconds, the CPUs' total seconds, and the
    1-minute load average at its start and end."""
    known = before["busy"] is not None and after["busy"] is not None
    return {"wall_s": after["wall"] - before["wall"], "cpus": after["cpus"],
            "others_cpu_s": max(0.0, (after["busy"] - before["busy"]) - (after["own_cpu"] - before["own_cpu"]))
            if known else None,
            "steal_s": after["steal"] - before["steal"] if known else None,
            "cpu_total_s": after["total"] - before["total"] if known else None,
            "loadavg": [before["loadavg"], after["loadavg"]]}


def reset_peak_memory() -> bool:
    """Start a new peak of this process's resident memory (Linux >= 4.0); False where it cannot be reset."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_memory() -> Optional[int]:
    """This process's peak resident bytes since the last reset (VmHWM), or None without /proc."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return None


def during(work: Callable[[], T]) -> tuple[T, dict[str, Any]]:
    """(what ``work()`` returns, how busy the machine was meanwhile: ``between``'s facts)."""
    before = snapshot()
    return work(), between(before, snapshot())
