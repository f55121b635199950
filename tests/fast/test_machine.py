"""The machine code of C++ kernels: the probe's objdump counts, joined to kernels and loop nests, deciding verdicts."""

import json
from dataclasses import replace

import pytest

from conftest import VERSIONS, analysis, record_path
from inspector.analysis import analyze
from inspector.analysis.facts import MachineEntry
from inspector.analysis.machine import with_machine_code
from inspector.analysis.parse import cpp
from inspector.model import Kernel, of_raw
from inspector.probe.machine import count
from inspector.raw import RawMachineCode, RawRecord
from inspector.record import kernel_key
from inspector.render.said import problem
from inspector.render.words import sentence

CPU = ("numpy-compiled-cpu", "torch-compiled-cpu")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("vid", CPU)
def test_a_scalar_nest_the_compiler_vectorized_is_said_and_the_machine_code_decides(version, vid):
    a = analysis(version, "decoded")
    v = a.variant(vid)
    (kernel,) = [k for k in v.code.kernels if k.backend == "cpp"]
    (nest,) = kernel.loop_nests
    assert not nest.vectorized  # Inductor's code is scalar ...
    code = nest.machine  # ... and the compiler packed its arithmetic: counted per nest, from the record alone
    assert code.simd == "packed" and code.packed_fp > 0 and code.register in ("xmm", "ymm", "zmm")
    assert code.instructions >= code.packed_fp + code.scalar_fp + code.simd_data and not code.unclassified
    (line,) = [e for e in v.code.lines if e.kernels]
    assert line.vectorized == "all"
    kinds = [r.kind for r in line.why]
    assert "machine-code" in kinds and "machine-disagrees" in kinds
    assert "the C++ compiler vectorized" in sentence(v, a.sample.path)
    assert [p for p in a.parse if p.artifact == "machine code"][0].problems == []


def _without_packed(entry):
    """A machine-code record entry with its packed arithmetic taken away (per function and per line)."""
    for counts in list(entry["functions"].values()) + list(entry["lines"].values()):
        counts.pop("packed_fp", None)
        counts["scalar_fp"] = counts.get("scalar_fp", 0) + 2
        counts["register"] = "xmm" if counts.get("register") else None


@pytest.mark.parametrize("version", VERSIONS)
def test_without_packed_arithmetic_or_without_a_record_the_verdict_is_inductors(version):
    record = json.loads(record_path(version, "decoded").read_text())
    for raw in record["variants"]:
        for entry in (raw.get("capture") or {}).get("machine_code") or []:
            _without_packed(entry)
    v = analyze(RawRecord.from_json(record)).variant("torch-compiled-cpu")
    (line,) = [e for e in v.code.lines if e.kernels]
    assert line.vectorized == "none" and "machine-disagrees" not in [r.kind for r in line.why]
    assert "machine code: packed SIMD in 0 of 1 C++ loop nests" in sentence(v, "samples/decoded.py")
    for raw in record["variants"]:
        (raw.get("capture") or {}).pop("machine_code", None)
    a = analyze(RawRecord.from_json(record))
    v = a.variant("torch-compiled-cpu")
    (line,) = [e for e in v.code.lines if e.kernels]
    assert line.vectorized == "none" and not [r for r in line.why if r.kind.startswith("machine")]
    assert "machine code not recorded" in sentence(v, a.sample.path)


def test_triton_kernels_say_machine_code_does_not_apply_once():
    a = analysis("2.13.0", "poly")
    v = a.variant("torch-triton-preview")
    assert "machine code not applicable (Triton kernels)" in sentence(v, a.sample.path)
    assert not [r for e in v.code.lines for r in e.why if r.kind.startswith("machine")]


KERNEL = """
extern "C" void kernel(const double* in_ptr0, double* out_ptr0)
{
    #pragma omp parallel
    {
        #pragma omp for
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
        {
            out_ptr0[x0] = in_ptr0[x0] * 2.0;
        }
        #pragma omp for
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(8L))
        {
            auto tmp0 = at::vec::Vectorized<double>::loadu(in_ptr0 + x0, 8);
            (tmp0 * tmp0).store(out_ptr0 + x0, 8);
        }
    }
}
"""
# objdump -d -l --inlines -M intel -C of such a kernel, cut down: an inlined at::vec operator on line 14, one
# instruction outside the classification table (AVX-512 VNNI)
DISASSEMBLY = """
0000000000001100 <kernel._omp_fn.0>:
kernel._omp_fn.0():
/tmp/cache/ab/k.main.cpp:9
    1100:\tvmulsd xmm0,xmm0,QWORD PTR [rip+0x10]
    1108:\tvmovsd QWORD PTR [rsi+rax*8],xmm0
/usr/include/ATen/cpu/vec/vec512/vec512_double.h:180
inlined by /tmp/cache/ab/k.main.cpp:14 (kernel._omp_fn.0)
    1110:\tvmulpd zmm0,zmm0,zmm0
/tmp/cache/ab/k.main.cpp:14 (discriminator 2)
    1116:\tvpdpbusd zmm1,zmm2,zmm3
    111c:\tcall   1000 <GOMP_barrier@plt>
    1121:\tret

0000000000001200 <kernel>:
kernel():
/tmp/cache/ab/k.main.cpp:4
    1200:\tlea    rdi,[rip+0x10]        # 1100 <kernel._omp_fn.0>
    1207:\tjmp    1010 <GOMP_parallel@plt>
"""


def test_the_counts_are_per_function_and_per_source_line_and_an_unknown_instruction_is_counted_not_guessed():
    functions, lines = count(DISASSEMBLY, "k.main.cpp")
    assert set(functions) == {"kernel", "kernel._omp_fn.0"}
    assert functions["kernel._omp_fn.0"] == {
        "instructions": 6, "scalar_fp": 1, "simd_data": 1, "packed_fp": 1, "general": 1, "register": "zmm",
        "calls": {"GOMP_barrier": 1}, "unclassified": {"vpdpbusd": 1}}
    assert functions["kernel"]["calls"] == {"GOMP_parallel": 1}  # a tail call through jmp
    assert lines["14"]["packed_fp"] == 1 and lines["9"]["scalar_fp"] == 1 and "packed_fp" not in lines["9"]
    entry = of_raw(MachineEntry, RawMachineCode.from_json({"key": kernel_key(KERNEL), "functions": functions,
                                                          "lines": lines}))
    values, _ = cpp.facts(KERNEL)
    kernel = Kernel(id="k", name="k", graph="0/0", backend="cpp", code=KERNEL, parallel=True, launches=[],
                    **vars(values))
    (joined,), (read, problems) = with_machine_code([kernel], [entry])
    scalar, vector = joined.loop_nests
    assert (scalar.machine.simd, vector.machine.simd) == ("scalar", "packed")
    assert read == 1 and [problem(p) for p in problems] == ["k: 1 instruction not classified (vpdpbusd x1)"]
    assert joined.machine.unclassified == (("vpdpbusd", 1),) and joined.machine.packed_int == 0
    # without a line table (torch 2.1), both nests are in one outlined function: not told apart, the kernel counted
    (joined,), (_, problems) = with_machine_code([kernel], [replace(entry, lines={})])
    assert [n.machine for n in joined.loop_nests] == [None, None] and joined.machine.simd == "packed"


def test_each_graph_of_a_recompiled_function_gets_its_own_kernels_machine_code():
    """A recompile's kernels share the first graph's names, each with a source of its own: each joins the entry of
    its graph; an entry without a graph (a record before entries had one) joins by its source alone; what joins
    nothing is one problem per item, never more problems than items read."""
    values, _ = cpp.facts(KERNEL)
    other = KERNEL.replace("64L", "32L")
    kernels = [Kernel(id=f"k@0/{g}", name="k", graph=f"0/{g}", backend="cpp", code=code, parallel=True, launches=[],
                      **vars(values)) for g, code in enumerate((KERNEL, other))]
    functions, lines = count(DISASSEMBLY, "k.main.cpp")
    entries = [of_raw(MachineEntry, RawMachineCode.from_json({"key": kernel_key(code), "graph": f"0/{g}", "kernel": "k",
                                                             "functions": functions, "lines": lines}))
               for g, code in enumerate((KERNEL, other))]
    joined, (read, problems) = with_machine_code(kernels, entries)
    assert all(k.machine for k in joined) and read == 2
    assert [problem(p) for p in problems] == [f"k@0/{g}: 1 instruction not classified (vpdpbusd x1)" for g in (0, 1)]
    older = [replace(e, graph=None, kernel=None) for e in entries]
    assert [k.machine for k in with_machine_code(kernels, older)[0]] == [k.machine for k in joined]
    stray = replace(entries[0], graph="0/7", key="0" * 16)
    joined, (read, problems) = with_machine_code(kernels, entries[:1] + [stray])
    assert [bool(k.machine) for k in joined] == [True, False] and read == 3
    assert [problem(p) for p in problems[1:]] == ["k@0/1: no machine code recorded for it",
                                                  "machine code of k in graph 0/7 joins no kernel of the output code"]
