"""A program rerun bare, for what compiling costs it on a rerun (``inspector run``; see ``inspector.probe.warm``).

Usage: python -c BOOTSTRAP --results FILE [--module] TARGET [ARGS...] (``inspector.collect.program``), with torch's
caches pointed at inspector's own folder and Inductor's provenance tracking at capture's level (a part of the graphs'
cache keys: the rerun finds the graphs the run compiled, as a user's rerun finds their run's). Nothing of inspector
is installed in the program's way: the program runs as
``python TARGET ARGS`` would, its first compile paying what a process's first compile pays once (loading torch's
compiler), as a bare rerun's does. When it has ended, FILE gets one JSON object: ``metrics``, torch's compile metrics
of every frame it compiled (with the frame's ``co_filename``, ``co_firstlineno`` and ``co_name``, so that the parent
gives each to its function).
"""

import argparse
import json
import sys
from typing import Optional

from inspector.probe import skip_last_collection
from inspector.probe.program import _forget_bootstrap, _run
from inspector.raw import warm_metrics

FRAME = ("co_filename", "co_firstlineno", "co_name")


def main(argv: Optional[list[str]] = None) -> int:
    """Rerun the program; its exit status."""
    p = argparse.ArgumentParser(prog="inspector.probe.rerun")
    p.add_argument("--results", required=True)
    p.add_argument("--module", action="store_true")
    p.add_argument("target")
    p.add_argument("args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    _forget_bootstrap()
    skip_last_collection()
    code = _run(args.target, args.args, args.module)
    from inspector.probe import warm  # torch: imported once the program has (or not at all before it ran)
    metrics = [warm_metrics(m, FRAME) for m in warm.metrics()]
    with open(args.results, "w", encoding="utf-8") as f:
        json.dump({"metrics": metrics}, f)
    return code


if __name__ == "__main__":
    sys.exit(main())
