"""Regenerate the checked-in probe output the fast tests read: one raw record per sample and torch version.

    python scripts/make-fixtures.py [--python PATH ...] [--only STEM ...]

Each ``--python`` interpreter (default: this one, and ``.venv-torch21/bin/python`` when it exists; see the README
for making that venv) runs every sample in samples/ through the probe at a small population, as ``inspector
report`` would, and the raw record goes to tests/fixtures/records/torch-<version>/<stem>.json with this machine's
paths replaced by neutral ones; each program in samples/programs/ (PROGRAMS), those of tests/programs/ in
TEST_PROGRAMS and the third-party ones of THIRD_PARTY go through ``inspector run`` into the same folder. With two
or more interpreters, ``interleaved`` (a stem for --only) runs poly under all of them as ``inspector compare`` does,
their variants timed again in alternating rounds, into tests/fixtures/records/interleaved/. Then run
scripts/make-goldens.py and review both diffs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis.fixes import TRYABLE  # noqa: E402
from inspector.model import FixKind  # noqa: E402
from inspector.api import measure  # noqa: E402
from inspector.collect import collect, collect_runs, sweep_point  # noqa: E402
from inspector.collect.program import collect_program  # noqa: E402
from inspector.envs import cache  # noqa: E402
from inspector.record import save  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "records"
# per fixture: its sample (the fixture's name unless given), population, further options of collect, and a sweep
# of smaller sizes before it (large enough for OpenMP under both versions: torch 2.1 keeps fewer than 4,096
# elements per thread serial)
PLAN = {
    "poly": dict(population=20_000, triton_preview=True),
    "trig": dict(population=20_000, triton_preview=True, sweep=[2000]),
    "sum": dict(population=500),
    "knapsack_breaks": dict(population=10_000, sizes=[9000]),
    "penalty_loops": dict(population=10_000),
    "matmul_fitness": dict(population=10_000),
    "ten_genes": dict(population=20_000),
    # a scalar loop the C++ compiler vectorizes: its machine code overrules the source verdict
    "decoded": dict(population=20_000),
    "hidden_layers": dict(population=10_000),
    "penalised": dict(population=10_000),
    "five_problems": dict(population=10_000),
    "two_objectives": dict(population=10_000),
    "recompiling": dict(population=2000),
    "pymoo_g7": dict(sample="libraries/pymoo_g7", population=20_000),
    # a graph per row: past the bound on profiled graph calls (runner.MAX_PROFILED_GRAPH_CALLS), not profiled
    "first_draft": dict(population=6000),
    # dynamic shapes from the first compile: loop bounds are symbolic sizes (ks0)
    "poly-dynamic": dict(sample="poly", population=20_000, only=["numpy", "*-compiled-cpu"],
                         config=["dynamo.assume_static_by_default=False"]),
    # the fixes tried (every fixture has them where they apply): here the layout and the tiling heuristic at the
    # default size, where the variant takes long enough for the rounds to tell a gain
    "ten_genes-fixes": dict(sample="ten_genes", population=100_000, only=["numpy", "*-compiled-cpu"]),
    # a small call whose guards are a share of it: guards on tensors only tried side by side (not under 2.1, which
    # keeps this size serial, against the sample's promise of parallel: since, the oldest torch it is made under)
    "poly-guards": dict(sample="poly", population=2000, only=["numpy", "torch", "torch-compiled-cpu"], since=(2, 13)),
}

# programs (inspector run): their arguments
PROGRAMS = {"ga": ["3000", "8"], "odd_calls": ["5000"], "recompile_limit": [], "control_flow": [],
            "plain_ga": ["100000", "8"]}
# programs of tests/programs/ recorded too (the fast tests of the advice and of the hot functions read them): their
# arguments; one of a folder there is named with its folder ("plain-map_gene_loop": plain/map_gene_loop.py)
TEST_PROGRAMS = {"recompile_on_float": [], "data_dependent_if": [], "method_on_self": [],
                 "plain-lists_if_chain": [], "plain-apply_along_axis_int8": [], "plain-map_gene_loop": [],
                 "plain-vectorized_es": [], "plain-flowshop": [], "plain-list_of_arrays": []}
# programs that need what an older torch lacks: the torch attribute they need
NEEDS = {"control_flow": "while_loop"}
# programs nobody on the team wrote (tests/fixtures/third_party), run as they are where their library is installed
# (pip install deap==1.4.4): their path, and the module they need
THIRD_PARTY = {f"deap-{stem}": (f"tests/fixtures/third_party/deap_examples/{stem}.py", "deap")
               for stem in ("onemax_numpy", "nqueens", "knapsack")}
# programs of ours that need a library beyond torch and numpy (pip install evotorch==0.6.1), run where it is
# installed: their path, and the module they need
WITH_LIBRARY = {"evotorch-snes": ("tests/programs/evotorch_snes.py", "evotorch")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", action="append", help="an interpreter with torch (repeatable)")
    parser.add_argument("--only", action="append", help="only this sample stem (repeatable)")
    args = parser.parse_args()
    old = ROOT / ".venv-torch21" / "bin" / "python"
    pythons = args.python or [sys.executable] + ([str(old)] if old.exists() else [])
    for python in pythons:
        facts = _facts(python)
        for stem, plan in PLAN.items():
            plan = dict(plan)
            if args.only and stem not in args.only or _version(facts["torch"]) < plan.pop("since", (0,)):
                continue
            record = _record(python, stem, plan, facts)
            _write(record, OUT / f"torch-{facts['torch']}" / f"{stem}.json", facts)
        for stem, argv in {**PROGRAMS, **TEST_PROGRAMS}.items():
            if (not args.only or stem in args.only) and NEEDS.get(stem, "__version__") in facts["has"]:
                os.chdir(ROOT)
                folder = "tests" if stem in TEST_PROGRAMS else "samples"
                _program(f"{folder}/programs/{stem.replace('-', '/')}.py", argv, python, stem, facts)
        for stem, (path, needs) in {**THIRD_PARTY, **WITH_LIBRARY}.items():
            if (not args.only or stem in args.only) and _importable(python, needs):
                os.chdir(ROOT)
                _program(path, [], python, stem, facts)
    if len(pythons) > 1 and (not args.only or "interleaved" in args.only):
        os.chdir(ROOT)
        records = collect_runs(Path("samples/poly.py"), [(p, []) for p in pythons], rounds=6, population=20_000,
                               budget=0.3, timeout=600, only=["numpy", "*-compiled-cpu"])
        for python, record in zip(pythons, records):
            facts = _facts(python)
            _write(record, OUT / "interleaved" / f"poly-torch-{facts['torch']}.json", facts)


def _write(record, path, facts):
    """Save ``record`` at ``path`` with this machine's paths made neutral."""
    save(record, path)
    text = _neutral(path.read_text(encoding="utf-8"), facts)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({len(text) // 1024} kB)")


def _facts(python):
    """The interpreter's torch version, the paths to neutralise and the names torch has."""
    out = subprocess.run([python, "-c", "import sys, json, torch; print(json.dumps({'torch': torch.__version__"
                          ".split('+')[0], 'prefixes': [sys.prefix, sys.base_prefix], 'has': dir(torch)}))"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def _record(python, stem, plan, facts):
    sample = ROOT / "samples" / f"{plan.pop('sample', stem)}.py"
    sweep = plan.pop("sweep", [])
    options = dict(budget=0.05, timeout=600, rounds=3, fixes=(*TRYABLE, FixKind.REWRITE), warm=cache("torch"),
                   **plan)  # as report does
    if options.pop("triton_preview", False) and _version(facts["torch"]) >= (2, 13):
        options["triton_preview"] = True
    os.chdir(ROOT)  # the sample path as a user in the checkout gives it
    relative = sample.relative_to(ROOT)
    records = [collect(relative, python=python, budget=0.05, timeout=600, population=n, kernel_times=False)
               for n in sweep]
    (record,) = measure(relative, [(python, [])], **options)
    if records:
        record = record.but(sweep=[sweep_point(r) for r in records + [record]])
    return record


def _program(path, argv, python, stem, facts):
    """``inspector run`` of the program at ``path`` under ``python``, its record written as ``stem``."""
    _, record = collect_program(path, argv, python=python)
    record = record.but(program=record.program.but(try_fixes=True))  # as inspector run does by default
    _write(record, OUT / f"torch-{facts['torch']}" / f"{stem}.json", facts)


def _importable(python, module):
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def _version(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:2])


def _neutral(text, facts):
    """The record's text with this machine's paths replaced (longest first, so nested paths go first)."""
    swaps = {str(ROOT): "/src/inspector", str(Path.home()): "/home/user"}
    swaps.update({p: "/opt/python" for p in facts["prefixes"]})
    for old, new in sorted(swaps.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, new)
        for cut in range(1, len(old) - 6):  # a guard's comment names its file cut to its last characters
            text = text.replace(f"# {old[cut:]}/", f"# {new}/")
    temp = re.escape(tempfile.gettempdir())
    text = re.sub(temp + r"/torchinductor_[^/\"\\ ]+", "/tmp/torchinductor_user", text)
    return re.sub(temp + r"/(inspector-|tmp)[^/\"\\ ]+", "/tmp/work", text)


if __name__ == "__main__":
    main()
