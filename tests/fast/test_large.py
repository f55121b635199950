"""A program Dynamo unrolled into one huge graph (bench/large_program.py measures a real one): a source line reached
through many call chains, a kernel of hundreds of loop nests and tens of thousands of lines. Made from the ten-gene
sample's record (one kernel of three nests) grown large: the page lists each line once per kernel, bounds what it
shows and says what it left out; the analysis keeps every fact and names long lists' first items."""

import re
from dataclasses import replace

from conftest import analysis
from inspector.analysis import lines
from inspector.analysis.facts import CompiledGraph
from inspector.model import LISTED, Reason, ReasonKind, Serial, SerialCause, NestAt
from inspector.render import section as sections
from inspector.render import renderer
from inspector.render.said import said

CHAINS = 30  # call sites of one helper, as an unrolled loop calling it from several lines gives
SERIAL = 20  # serial loop nests a line's operations run in


def _grown():
    """(Analysis, the variant) with its kernel's code and output code long, and each placed line reached through
    CHAINS call chains, each verdict saying SERIAL nests run single-threaded."""
    a = analysis("2.13.0", "ten_genes")
    v = a.variant("numpy-compiled-cpu")
    (k,) = v.code.kernels
    filler = "".join(f"\n// generated line {i}" for i in range(3 * sections.KERNEL_LINES))
    serial = [Reason(ReasonKind.SERIAL, Serial(NestAt("k", i), SerialCause.ONE_THREAD)) for i in range(SERIAL)]
    placed = [replace(e, via=[(e.file, 100 + n)], why=e.why + serial) for e in v.code.lines if e.kernels
              for n in range(CHAINS)]
    grown = replace(v, code=replace(
        v.code, kernels=(replace(k, code=k.code + filler),),
        lines=tuple(placed + [e for e in v.code.lines if not e.kernels]),
        graphs=tuple(replace(g, output_code=[c + filler * 2 for c in g.output_code]) for g in v.code.graphs)))
    return replace(a, variants=tuple(grown if x is v else x for x in a.variants)), grown


def test_each_source_line_is_listed_once_per_kernel_however_many_calls_reach_it():
    a, v = _grown()
    page = renderer("html").report(a)
    (listed,) = re.findall(r'<details class="kernel"[^>]*data-variant="v-numpy-compiled-cpu"[^>]*>\n<summary>[^\n]*'
                           r'· lines ([^<]*)</summary>', page)
    assert listed.split(", ") == sorted({str(e.line) for e in v.code.lines if e.kernels}, key=int)
    assert len(v.code.lines) > CHAINS * len(listed.split(", "))  # a verdict per call chain, each kept in the analysis


def test_the_page_bounds_a_huge_kernel_its_output_code_and_a_lines_reasons_and_says_what_it_left_out():
    a, v = _grown()
    page = renderer("html").report(a)
    (k,) = v.code.kernels
    total = k.code.count("\n") + 1
    section = page[page.index('data-kernel="cpp_fused'):]
    section = section[:section.index("</details>")]
    assert section.count('<div class="ln') == sections.KERNEL_LINES
    assert f"and {total - sections.KERNEL_LINES:,} more lines of its {total:,}" in section
    assert "in the JSON record beside this report" in section
    assert page.count("lines not shown here: the whole is in the JSON record") == len(v.code.graphs)
    placed = len([e for e in v.code.lines if e.kernels])  # a note under its line each, its serial reasons bounded
    assert page.count(f"and {SERIAL - sections.REASONS_PER_KIND} more single-threaded loop nests") == placed
    assert page.count("runs single-threaded") == sections.REASONS_PER_KIND * placed


def test_a_line_in_hundreds_of_loop_nests_names_the_first_and_counts_the_rest():
    a = analysis("2.13.0", "ten_genes")
    (k,) = a.variant("numpy-compiled-cpu").code.kernels
    nests = [replace(n, index=i + 1) for i, n in enumerate(k.loop_nests * 100)]
    k = replace(k, loop_nests=nests)
    (split,) = lines._nest_reasons([[(k, n)] for n in nests])
    assert said(split).startswith(f"its operations run in {len(nests)} loop nests: {k.name} nest 1 (")
    assert said(split).endswith(f"(and {len(nests) - LISTED} more)") and said(split).count(k.name) == LISTED


def test_the_scheduler_s_reasons_pair_the_nests_they_name_in_a_kernel_of_hundreds():
    a = analysis("2.13.0", "ten_genes")
    (k,) = a.variant("numpy-compiled-cpu").code.kernels
    nests = [replace(k.loop_nests[0], index=i + 1, nodes=[f"op{i}"]) for i in range(300)]
    k = replace(k, loop_nests=nests)
    pairs = tuple((f"op{i + 1}", f"op{i}", "no shared data") for i in reversed(range(299)))
    graph = CompiledGraph(k.graph, "", (), None, pairs, {}, None, None, None)
    why = lines._fusion_reasons([(k, n) for n in nests], lines._fusion([graph]))
    assert [said(r).split(" are ")[0] for r in why] == [f"nests {i} and {i + 1} of {k.name}" for i in range(1, 300)]
    assert all(said(r).endswith(f"no shared data (op{i} with op{i - 1})") for i, r in enumerate(why, 1))
