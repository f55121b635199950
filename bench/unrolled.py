"""What compiling a rewrite whose loop over the genes stays costs, by gene count: the bound behind UNROLLED_GENES.

    python bench/unrolled.py [--genes 16,64,100] [--rows 5000] [--repeats 3]

The knapsack decoder of tests/programs/plain/knapsack_decoder.py (its test reads the running weight: a state carried
from gene to gene), its ITEMS set to each gene count, is rewritten in torch by
inspector's rewriter (``for i in range(population.shape[1])`` kept, its body over the population), then, for each
gene count, compiled in a fresh process ``--repeats`` times, Inductor's FX graph cache and AOTAutograd's cache off
(as inspector's capture compiles; the C++ builds stay cached): the script prints the first compiled call's seconds
(Dynamo unrolls the loop, one copy of its body per gene, so this grows with the genes), the eager and the steady
compiled call, and their ratio, each the median of the repeats with the lowest and highest.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.rewrite import Dialect, program_from_sources, vectorize  # noqa: E402
from inspector.rewrite.model import UNROLLED_GENES  # noqa: E402

DECODER = ROOT / "tests" / "programs" / "plain" / "knapsack_decoder.py"  # its ITEMS set to each gene count

TIMED = '''
import json, sys, time, torch
space = {"__name__": "decoder"}
exec(sys.argv[1], space)
decode_torch = space["decode_torch"]
pop = torch.rand(int(sys.argv[2]), int(sys.argv[3]), dtype=torch.float64)
start = time.perf_counter(); decode_torch(pop); eager = time.perf_counter() - start
start = time.perf_counter(); decode_torch(pop); eager = min(eager, time.perf_counter() - start)
compiled = torch.compile(decode_torch)
start = time.perf_counter(); compiled(pop); first = time.perf_counter() - start
steady = []
for _ in range(5):
    start = time.perf_counter(); compiled(pop); steady.append(time.perf_counter() - start)
print(json.dumps({"first": first, "eager": eager, "steady": min(steady)}))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genes", default=f"16,{UNROLLED_GENES},100,200")
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for genes in (int(g) for g in args.genes.split(",")):
        source = re.sub(r"^ITEMS = \d+$", f"ITEMS = {genes}", DECODER.read_text(), flags=re.M)
        rewrite = vectorize(program_from_sources(source), "decode", Dialect.TORCH)
        code = "import torch\n" + source + "\n" + rewrite.source
        runs = [json.loads(subprocess.run([sys.executable, "-c", TIMED, code, str(args.rows), str(genes)],
                                          capture_output=True, text=True, check=True,
                                          env=dict(os.environ, TORCHINDUCTOR_FX_GRAPH_CACHE="0",
                                                   TORCHINDUCTOR_AUTOGRAD_CACHE="0")).stdout)
                for _ in range(args.repeats)]

        def said(key, scale=1.0, unit="s", runs=runs):
            values = [r[key] * scale for r in runs]
            return f"{statistics.median(values):.3g} {unit} ({min(values):.3g} to {max(values):.3g})"
        ratios = [r["eager"] / r["steady"] for r in runs]
        print(f"{genes:>4} genes: first compiled call {said('first')}; eager {said('eager', 1e3, 'ms')}, compiled "
              f"{said('steady', 1e3, 'ms')}: compiled {statistics.median(ratios):.2f}x faster "
              f"({min(ratios):.2f}x to {max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
