"""The machine code of each C++ kernel Inductor builds and loads: instruction counts from ``objdump``.

Hooked where a kernel's C++ source and its shared object are both known: torch 2.13's
``CppPythonBindingsCodeCache.load_pybinding_async`` (``async_compile.cpp_pybinding``; the shared object is the module
its entry function belongs to) and ``CppCodeCache.load`` (torch 2.1's ``async_compile.cpp``; a ctypes library). Loading
only notes the path; ``take()``, called after the compiling call, disassembles (outside torch's compile time).

Each kernel's record holds plain counts, never the shared object: per function of the kernel (the entry function
``kernel`` and the OpenMP outlined functions ``kernel._omp_fn.N`` that hold its parallel regions; GCC's ``.cold``,
``.part.N`` and ``.constprop.N`` pieces count in the function they were split from, and a local function one of them
calls, where it is ``at::vec`` code or a lambda of the kernel, in the caller), each instruction in one class of
``CLASSES``, the calls by target, and the widest SIMD register; the same per line of the kernel's source where the
compiler wrote a line table (``count``). An entry per graph (``graph``: its compile id) and kernel (``kernel``: its
name in that graph's output code) holding it: a recompiled graph's kernels share a name, and torch reuses a module it
loaded for another graph; its ``key`` (``inspector.record.kernel_key``) joins it to the kernel analysis parses from that
output code. It costs 10 to 30 ms per kernel (two cores) and 0.4 to 11 kB of record; where capture keeps facts
(``inspector.probe.graphcache``), the counts of a shared object are kept there too, by the digest of its bytes.
"""

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional

from inspector.probe.graphcache import file_digest
from inspector.record import kernel_key, write_atomic

if TYPE_CHECKING:
    from inspector.probe.decisions import Restore  # imports torch

Counts = dict[str, Any]  # one function's or line's counts: per class, instructions, calls, register, ...
Counted = tuple[dict[str, Counts], dict[str, Counts]]  # count's ({function: counts}, {line: counts})
Bodies = dict[str, list[tuple[str, Optional[int]]]]  # {function: [(instruction, its source line)]}

OBJDUMP_TIMEOUT_S = 60
# the instruction classes, first match wins (Intel syntax mnemonics, VEX/EVEX ``v`` prefix optional); an instruction
# none matches is counted by mnemonic under ``unclassified``, never guessed
_FP = (r"(?:add|sub|mul|div|sqrt|min|max|rcp(?:14|28)?|rsqrt(?:14|28)?|round|rndscale|getexp|getmant|scalef|range"
       r"|reduce|fixupimm|hadd|hsub|addsub|dp|cmp\w*|f(?:n?m(?:add|sub)|maddsub|msubadd)(?:132|213|231))")
CLASSES = (
    ("gather", re.compile(r"^vp?gather\w+$")),
    ("scatter", re.compile(r"^vp?scatter\w+$")),
    ("mask", re.compile(r"^k(?:mov|and|andn|or|xor|xnor|not|test|ortest|shift\w*|add|unpck)\w*$")),
    ("scalar_fp", re.compile(rf"^v?(?:{_FP}s[sdh]|u?comis[sdh]|cvtt?(?:s[sdh]|u?si)2\w+|cvt\w+2(?:s[sdh]|u?si))$")),
    ("packed_fp", re.compile(rf"^v?(?:{_FP}p[sdh]|cvt\w+)$")),
    ("packed_int", re.compile(r"^v?p(?:add|sub|mul|madd|cmp|min|max|abs|sll|srl|sra|sign|avg|sadbw|hadd|hsub|test"
                              r"|lzcnt|popcnt|conflict|rol|ror|shld|shrd)\w*$")),
    ("simd_data", re.compile(
        r"^v?(?:mov(?:ap|up|nt|h|l|dq|dd|sh|sl|msk)\w*|movs[sdh]|movq|movd|lddqu|p?broadcast\w*|perm\w*|p?shuf\w*"
        r"|p?unpck\w*|insert\w*|extract\w*|pinsr\w*|pextr\w*|p?blend\w*|(?:andn?|or|xor)p[sdh]|pandn?\w*|por\w*"
        r"|pxor\w*|pternlog\w*|p?align\w*|pack\w*|pmov\w*|p?expand\w*|p?compress\w*|zeroupper|zeroall|fpclass\w*"
        r"|testp[sd]|p?maskmov\w*)$")),
    ("general", re.compile(
        r"^(?:mov|movabs|movsx|movsxd|movzx|movs[bwq]|stos\w*|lea|add|adc|sub|sbb|imul|mul|idiv|div|inc|dec|neg|not"
        r"|and|andn|or|xor|shl|shr|sar|sal|rol|ror|shld|shrd|shlx|shrx|sarx|rorx|mulx|cmp|test|j\w+|set\w+|cmov\w+"
        r"|push|pop|ret|leave|nop|xchg|xadd|cmpxchg\w*|cqo|cdq|cdqe|cwde|cwd|cbw|bt[crs]?|bsf|bsr|tzcnt|lzcnt|popcnt"
        r"|bswap|bl\w+|bextr|bzhi|pdep|pext|endbr64|ud2|int3|hlt|pause|[lms]fence|prefetch\w*)$")),
)
PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd", "data16", "cs", "ds", "ss", "es", "fs",
            "gs", "{evex}", "{vex}", "{vex3}", "addr32"}
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\t(\S.*)$")
# a line-table place: "/path/x.cpp:71" (the innermost), then "inlined by /path/x.cpp:71 (kernel._omp_fn.1)"
LOCATION = re.compile(r"^(inlined by )?(\S.*?):(\d+)(?: \(discriminator \d+\))?(?: \(.*\))?$")
TARGET = re.compile(r"<(.+?)(?:\+0x[0-9a-f]+)?>$")
# GCC's pieces of one function: kernel.cold, kernel._omp_fn.0.part.0, kernel.constprop.0.isra.0
PIECE = re.compile(r"(?:\.(?:cold|part|constprop|isra|lto_priv)(?:\.\d+)?)+$")
WIDTH = ("zmm", "ymm", "xmm")
# local functions counted in their caller: ``at::vec`` code the compiler did not inline, the kernel's lambdas (not
# the error paths: building an exception message copies strings with SIMD moves)
MERGED = ("at::", "kernel::")
# a kernel's definition in an output module: ``name = async_compile.cpp_pybinding(...)`` (2.13), ``.cpp(`` (2.1)
DEFINITION = re.compile(r"^(\w+) = async_compile\.\w+\(", re.M)


class MachineCode:
    """Notes each C++ kernel's source and shared object as torch loads it; ``take()`` counts their instructions."""

    def __init__(self, problem: Callable[[str], None], kept: Optional[str] = None) -> None:
        self._problem = problem  # called with one line when something could not be read
        self._kept = kept  # a folder where counts are kept by the digest of the shared object, or None
        # (source, path) since the last take(); appended from Inductor's compile threads too
        self._loaded: list[tuple[str, Optional[str]]] = []
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, Optional[str]]] = {}  # key: (source, path) of every kernel loaded so far
        self._counted: dict[str, Counted] = {}  # path: its functions, counted once per process
        self._objdump: Optional[str] = None

    def install(self, restore: "Restore") -> None:
        """Wrap the loaders this torch has; ``restore`` gets (class, name, original) for each."""
        from torch._inductor import codecache
        bindings = getattr(codecache, "CppPythonBindingsCodeCache", None)
        if bindings is not None and "load_pybinding_async" in vars(bindings):
            self._wrap(restore, bindings, "load_pybinding_async", 1, _future_path)
        plain = getattr(codecache, "CppCodeCache", None)
        if plain is not None and "load" in vars(plain):
            self._wrap(restore, plain, "load", 0, _library_path)

    def _wrap(self, restore: "Restore", owner: Any, name: str, source_at: int,
              path_of: Callable[[Any, Callable[[Optional[str]], None]], Any]) -> None:
        """Wrap the classmethod ``owner.name`` (torch's loader) to note what it loads."""
        original = vars(owner)[name]
        recorder = self

        def load(cls: Any, *args: Any, **kwargs: Any) -> Any:
            result = original.__func__(cls, *args, **kwargs)
            if cls is owner and len(args) > source_at:  # not a subclass's (the C++ wrapper's) whole module
                return path_of(result, lambda path: recorder._note(args[source_at], path))
            return result

        setattr(owner, name, classmethod(load))
        restore.append((owner, name, original))

    def _note(self, source: str, path: Optional[str]) -> None:
        with self._lock:
            self._loaded.append((source, path))

    def take(self, graphs: Iterable[tuple[Optional[str], Sequence[str]]] = ()) -> list[dict[str, Any]]:
        """[{``key``, ``graph``, ``kernel``, ``functions``, ``lines``, ``seconds``}]: one entry per graph and kernel of
        ``graphs`` ((compile id, its output modules) compiled since the last call) whose C++ source was loaded, now or
        before (torch reuses a module it loaded); and one without ``graph`` and ``kernel`` for each kernel loaded since
        the last call that none of them holds."""
        with self._lock:
            loaded, self._loaded = self._loaded, []
        for source, path in loaded:
            self._known[kernel_key(source)] = (source, path)
        places = [(graph, key, name) for graph, codes in graphs for code in codes
                  for key, name in _kernels_in(code, self._known).items()]
        held = {key for _, key, _ in places}
        places += [(None, key, None) for key in dict.fromkeys(kernel_key(s) for s, _ in loaded) if key not in held]
        out: list[dict[str, Any]] = []
        for graph, key, name in dict.fromkeys(places):
            start = time.perf_counter()
            counted = self._read(self._known[key][1])
            if counted is not None:
                out.append({"key": key, **({"graph": graph, "kernel": name} if graph is not None else {}),
                            "functions": counted[0], "lines": counted[1],
                            "seconds": round(time.perf_counter() - start, 6)})
        return out

    def _read(self, path: Optional[str]) -> Optional[Counted]:
        """(functions, lines) as ``count`` gives them, of the shared object at ``path``; None where it was not read."""
        if not path:
            return None
        if path in self._counted:
            return self._counted[path]
        kept = self._kept_at(path)
        if kept and os.path.exists(kept):
            with open(kept, encoding="utf-8") as f:
                functions, lines = json.load(f)
                self._counted[path] = (functions, lines)
            return self._counted[path]
        if self._objdump is None:
            self._objdump = _find_objdump() or ""
            if not self._objdump:  # said once, not once per kernel
                self._problem("objdump not found (binutils): the machine code of the C++ kernels is not counted")
        if not self._objdump:
            return None
        try:
            command = [self._objdump, "-d", "-l", "--inlines", "--no-show-raw-insn", "-M", "intel", "-C", path]
            text = subprocess.run(command, capture_output=True, text=True, timeout=OBJDUMP_TIMEOUT_S, check=True).stdout
        except (OSError, subprocess.SubprocessError) as e:
            self._problem(f"objdump could not read {os.path.basename(path)}: {type(e).__name__}: {e}")
            return None
        self._counted[path] = count(text, os.path.basename(path)[:-len(".so")] + ".cpp")
        if kept:
            write_atomic(kept, json.dumps(self._counted[path]))
        return self._counted[path]

    def _kept_at(self, path: str) -> Optional[str]:
        """Where the counts of the shared object at ``path`` are kept (by its bytes' digest), or None."""
        digest = file_digest(path) if self._kept else None
        return os.path.join(self._kept, "machine", digest + ".json") if self._kept and digest else None


def _kernels_in(code: str, known: dict[str, tuple[str, Optional[str]]]) -> dict[str, Optional[str]]:
    """{key: kernel name} of the ``known`` kernels ({key: (source, path)}) whose source the output module ``code``
    holds, each named by the definition it is the source of."""
    found: dict[str, Optional[str]] = {}
    for key, (source, _) in known.items():
        at = code.find(source)
        if at >= 0:
            names = DEFINITION.findall(code, 0, at)
            found[key] = names[-1] if names else None
    return found


def _future_path(future: Callable[[], Any], note: Callable[[Optional[str]], None]) -> Callable[[], Any]:
    """torch 2.13: the callable that loads the module; the entry function it returns belongs to the module."""
    def loaded() -> Any:
        function = future()
        note(getattr(getattr(function, "__self__", None), "__file__", None))
        return function
    return loaded


def _library_path(library: Any, note: Callable[[Optional[str]], None]) -> Any:
    """torch 2.1: the loaded ctypes library (a module where a later torch returns one)."""
    note(getattr(library, "_name", None) or getattr(library, "__file__", None))
    return library


def _find_objdump() -> Optional[str]:
    """objdump next to the C++ compiler Inductor uses (a toolchain's prefixed one too), else on the PATH."""
    compiler: Optional[str] = None
    try:
        from torch._inductor import cpp_builder
        compiler = cpp_builder.get_cpp_compiler()
    except Exception:  # torch 2.1 has no cpp_builder
        try:
            from torch._inductor import codecache
            compiler = codecache.cpp_compiler()
        except Exception:
            compiler = os.environ.get("CXX")
    found = shutil.which(compiler) if compiler else None
    if found:
        folder, name = os.path.split(os.path.realpath(found))
        prefix = re.sub(r"(?:g\+\+|c\+\+|gcc|cc|clang\+\+|clang)(?:-[\d.]+)?$", "", name)
        for candidate in (f"{prefix}objdump", "objdump"):
            if os.access(os.path.join(folder, candidate), os.X_OK):
                return os.path.join(folder, candidate)
    return shutil.which("objdump")


def count(disassembly: str, source: Optional[str] = None) -> Counted:
    """({function: counts}, {line: counts}) of ``objdump -d -l --inlines -M intel -C`` text, for the kernel's own
    functions: the entry ``kernel`` and its OpenMP outlined functions, each with the local functions it calls counted
    in it; and per line of ``source`` (the file name of the kernel's C++ source), from the line table where the
    compiler wrote one (torch 2.13's ``-g1``): each instruction on the line of that file that it is, or that inlined
    the code it is (a local function's, on the line that calls it)."""
    bodies: Bodies = {}
    current: Optional[list[tuple[str, Optional[int]]]] = None
    line: Optional[int] = None
    for text in disassembly.splitlines():
        found = FUNCTION.match(text)
        if found:
            name, line = found.group(1), None
            current = None if name.endswith("@plt") else bodies.setdefault(PIECE.sub("", name), [])
            continue
        found = INSTRUCTION.match(text)
        if found:
            if current is not None:
                current.append((found.group(1), line))
            continue
        found = LOCATION.match(text)
        if found:  # the innermost place first, then each "inlined by" outwards: the last one in the source counts
            if not found.group(1):
                line = None
            if source and found.group(2).rsplit("/", 1)[-1] == source:
                line = int(found.group(3))
    functions: dict[str, Counts] = {}
    lines: dict[int, Counts] = {}
    for name in bodies:
        if _kernel_function(name):
            counts = _empty()
            _add(counts, lines, name, bodies, {name}, None)
            functions[name] = _kept(counts)
    return functions, {str(n): _kept(c) for n, c in sorted(lines.items())}


def _kept(counts: Counts) -> Counts:
    return {k: v for k, v in counts.items() if v}  # a class it has none of is left out


def _kernel_function(name: str) -> bool:
    return name == "kernel" or name.startswith(("kernel.", ".omp_outlined"))


def _empty() -> Counts:
    return dict({c: 0 for c, _ in CLASSES}, instructions=0, calls={}, register=None, unclassified={}, local=[])


def _add(counts: Counts, lines: dict[int, Counts], name: str, bodies: Bodies, seen: set[str], at: Optional[int]
         ) -> None:
    """Count ``name``'s instructions into ``counts`` and ``lines`` ({line: counts}; ``at``: the line of the call for
    a local function's), and those of the local functions it calls (each once)."""
    for text, line in bodies[name]:
        words = text.split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        if not words:
            continue
        line = at or line
        here = [counts] + ([lines.setdefault(line, _empty())] if line else [])
        callee = _count(here, words[0], " ".join(words[1:]))
        if callee in bodies and callee.startswith(MERGED) and not _kernel_function(callee) and callee not in seen:
            seen.add(callee)
            counts["local"].append(callee)
            _add(counts, lines, callee, bodies, seen, line)


def _count(targets: list[Counts], mnemonic: str, operands: str) -> Optional[str]:
    """Count one instruction in each of ``targets``; the local name of the function it calls, if it is a call."""
    callee: Optional[str] = None
    kind: Optional[str] = None
    if mnemonic == "call" or (mnemonic == "jmp" and "@plt" in operands):  # a tail call leaves through jmp
        target = TARGET.search(operands.split("#")[-1].strip())
        called = target.group(1).split("@")[0] if target else "(indirect)"
        shown = re.split(r"[(<]", called)[0].strip() or called  # a C++ name without its arguments
        kind, callee = "call", PIECE.sub("", called)
    else:
        kind = next((c for c, pattern in CLASSES if pattern.match(mnemonic)), None)
        width = next((w for w in WIDTH if w in operands), None) if kind not in (None, "general") else None
    for counts in targets:
        counts["instructions"] += 1
        if kind == "call":
            counts["calls"][shown] = counts["calls"].get(shown, 0) + 1
        elif kind is None:
            counts["unclassified"][mnemonic] = counts["unclassified"].get(mnemonic, 0) + 1
        else:
            counts[kind] += 1
            if width and (counts["register"] is None or WIDTH.index(width) < WIDTH.index(counts["register"])):
                counts["register"] = width
    return callee
