"""What a ``*-compiled-cuda`` variant costs and launches beyond its timing: the host<->device copies (which
the timed calls leave out, since inputs are moved once) and the autotuned launch config of each Triton kernel.
"""

import re
from typing import Any

import numpy as np
import torch

from inspector.probe.timing import measure

TRITON_KERNEL = re.compile(r"^(\w+) = async_compile\.triton\(", re.M)


def facts(population: np.ndarray, output: object, captured: dict[str, Any], budget_s: float = 0.2) -> dict[str, Any]:
    """The variant's ``transfer`` and ``launch_configs``; ``captured`` holds its compiled graphs."""
    codes = [c for g in captured.get("graphs") or [] for c in g.get("output_code") or []]
    return {"transfer": transfer(population, output, budget_s),
            "launch_configs": launch_configs({n for c in codes for n in TRITON_KERNEL.findall(c)})}


def transfer(population: np.ndarray, output: object, budget_s: float) -> dict[str, Any]:
    """Seconds to copy the population to the device (from a NumPy array, as a NumPy caller would each call)
    and the output back, with their sizes in bytes."""
    host = torch.from_numpy(population)
    to_device = measure(lambda: host.to("cuda"), torch.cuda.synchronize, budget_s)["median_s"]
    result = {"to_device_s": to_device, "to_device_bytes": host.nbytes, "to_host_s": None, "to_host_bytes": None}
    if isinstance(output, torch.Tensor) and output.is_cuda:
        result["to_host_s"] = measure(lambda: output.cpu(), torch.cuda.synchronize, budget_s)["median_s"]
        result["to_host_bytes"] = output.nbytes
    return result


def launch_configs(names: set[str]) -> dict[str, dict[str, Any]]:
    """{kernel name: its autotuned launch config} for the Triton kernels ``names`` loaded in this process.

    Read from Inductor's loaded output-code modules, where each kernel is a ``CachingAutotuner`` whose
    launcher keeps the config it chose; the module loaded last wins when two share a name.
    """
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    found: dict[str, dict[str, Any]] = {}
    for module in list(getattr(PyCodeCache, "modules", [])):
        for name, kernel in vars(module).items():
            if name in names and isinstance(kernel, CachingAutotuner) and kernel.launchers:
                launcher = kernel.launchers[0]
                config = launcher.config
                found[name] = {"kwargs": {k: v for k, v in config.kwargs.items() if isinstance(v, (int, float))},
                               "num_warps": config.num_warps, "num_stages": config.num_stages,
                               "registers": getattr(launcher, "n_regs", None),
                               "spills": getattr(launcher, "n_spills", None),
                               "shared_bytes": getattr(launcher, "shared", None)}
    return found
