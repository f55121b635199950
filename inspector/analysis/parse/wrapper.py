"""The wrapper of an Inductor output-code module: its ``call`` function, in every torch version's spelling.

``call(args)`` at the top level (torch 2.1) or ``Runner.call(self, args)`` (torch 2.13) launches the graph's
kernels and library calls in order, after allocating their buffers. A higher-order op Inductor lowers to subgraphs
(``torch.cond``, ``torch.while_loop``, ``invoke_subgraph``, ...; torch 2.13, not 2.1) is a function of the module per
subgraph (``true_graph_0(args)``, ``while_loop_body_graph_0(args)``) that ``call`` calls, inside an ``if`` on the
predicate or a ``while`` loop on the condition's result, and that launches kernels as ``call`` does. This module is the
one place that finds them, names their calls in the order they run and follows buffer sizes through them.
"""

import ast
import builtins
import functools
import math
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Optional

# calls the wrapper makes that are plumbing, not computation (every torch version from 2.1 on)
PLUMBING = {"assert_size_stride", "assert_alignment", "reinterpret_tensor", "alloc_from_pool", "c_void_p",
            "c_long", "c_int", "len", "args.clear", "get_raw_stream", "torch.cuda.set_device",
            "torch.cuda._DeviceGuard", "torch._C._cuda_getCurrentRawStream", "empty_strided", "device",
            "as_strided", "copy_", "run_intermediate_hooks", "maybe_profile", "record_function"}
LIBRARY = ("extern_kernels.", "aten.", "torch.ops.")
# how often a call in the wrapper runs per call of the graph: once (None), per iteration of a loop (a while_loop's
# body and condition: as many times as the data says, not known from the code), or when its branch is taken
LOOP, BRANCH = "loop", "branch"
BODIES = ("body", "orelse", "finalbody")  # a compound statement's nested statements


@dataclass(frozen=True)
class Call:
    """One call of a kernel or a library function in the wrapper: its name, the elements of each argument (None:
    unknown), the subgraph function that makes it (None: ``call`` itself) and how often it runs per graph call
    (``repeat``: None once, LOOP or BRANCH)."""

    name: str
    numels: list[Optional[int]]
    subgraph: Optional[str] = None
    repeat: Optional[str] = None


class WrapperError(Exception):
    """The module does not parse as Python; one line."""


@functools.lru_cache(maxsize=64)
def parse(output_code: str) -> ast.Module:
    """The module's syntax tree (shared: not to be changed; kernels and cost read each module), WrapperError when it
    is not Python."""
    try:
        with warnings.catch_warnings():  # torch 2.1's ORIGIN comments hold invalid escapes: not ours to lint
            warnings.simplefilter("ignore")
            return ast.parse(output_code)
    except (SyntaxError, ValueError) as e:
        raise WrapperError(f"output code does not parse: {e}") from None


@dataclass(frozen=True)
class Wrapper:
    """What an output-code module says of its kernels, read once: each kernel it defines (``{name: (factory,
    code)}``, a top-level ``name = async_compile.<factory>(..., code)``), each launch and library call in the order
    they run (``calls``), the names ``call`` calls that are neither (``unknown``, once each), and whether it has a
    ``call`` at all."""

    defined: dict[str, tuple[str, str]]
    calls: list[Call]
    unknown: list[str]
    has_call: bool


def read(output_code: str, factories: Mapping[str, object]) -> Wrapper:
    """The module's Wrapper (``factories``: the ``async_compile`` factories that define a kernel); WrapperError when
    it is not Python."""
    tree = parse(output_code)
    defined = dict(found for found in (_definition(node, factories) for node in tree.body) if found)
    calls, unknown = launches(tree, set(defined))
    return Wrapper(defined, calls, list(dict.fromkeys(unknown)), bool(call_functions(tree)))


def _definition(node: ast.stmt, factories: Mapping[str, object]) -> Optional[tuple[str, tuple[str, str]]]:
    """(name, (factory, code)) of a top-level ``name = async_compile.<factory>(..., code)``, else None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)):
        return None
    called = dotted_name(node.value.func) or ""
    factory = called.removeprefix("async_compile.")
    strings = [a.value for a in node.value.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not called.startswith("async_compile.") or factory not in factories or not strings:
        return None
    return node.targets[0].id, (factory, strings[-1])


def call_functions(tree: ast.AST) -> list[ast.FunctionDef]:
    """Every ``call`` function of the module (top level or a method), in source order."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call"]


def call_source(output_code: str, tree: ast.Module) -> str:
    """The text of the module's ``call`` functions, then of the subgraph functions they call."""
    functions = call_functions(tree) + list(subgraph_functions(tree).values())
    return "\n".join(ast.get_source_segment(output_code, fn) or "" for fn in functions)


def subgraph_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """{name: definition} of the module's top-level functions that ``call`` calls, directly or through another."""
    defined = _functions(tree)
    called = [dotted_name(n.func) for n, _, _ in _run_order(tree, defined) if isinstance(n, ast.Call)]
    return {name: defined[name] for name in dict.fromkeys(called) if name in defined}


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """{name: definition} of the module's top-level functions other than ``call``."""
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != "call"}


def dotted_name(func: ast.expr) -> Optional[str]:
    """``a.b.c`` for a call's function expression, or None (a subscript, a call result)."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return None


def _run_order(tree: ast.Module, functions: dict[str, ast.FunctionDef]
               ) -> Iterator[tuple[ast.AST, Optional[str], Optional[str]]]:
    """(node, subgraph function, repeat) of each assignment and call of the ``call`` functions, in the order they run:
    a call of one of ``functions`` (the module's) followed by that function's own, each made from that subgraph."""
    for fn in call_functions(tree):
        yield from _body(fn.body, functions, None, None, ())


def _body(statements: list[ast.stmt], functions: dict[str, ast.FunctionDef], subgraph: Optional[str],
          repeat: Optional[str], inside: tuple[str, ...]) -> Iterator[tuple[ast.AST, Optional[str], Optional[str]]]:
    """What ``_run_order`` yields for ``statements`` (``inside``: the subgraph functions being followed)."""
    for statement in statements:
        nested = [s for field in BODIES for s in getattr(statement, field, [])]
        nested += [s for h in getattr(statement, "handlers", []) for s in h.body]
        skip = {id(n) for s in nested for n in ast.walk(s)}
        own = [n for n in ast.walk(statement) if isinstance(n, (ast.Assign, ast.Call)) and id(n) not in skip]
        for node in sorted(own, key=lambda n: (n.lineno, n.col_offset)):
            yield node, subgraph, repeat
            name = dotted_name(node.func) if isinstance(node, ast.Call) else None
            if name in functions and name not in inside:
                yield from _body(functions[name].body, functions, name, repeat, inside + (name,))
        if nested:
            deeper = _inner(statement, repeat)
            for field in BODIES:
                once = field == "orelse" and isinstance(statement, (ast.While, ast.For))  # after the loop, once
                yield from _body(getattr(statement, field, []), functions, subgraph, repeat if once else deeper, inside)
            for handler in getattr(statement, "handlers", []):
                yield from _body(handler.body, functions, subgraph, deeper, inside)


def _inner(statement: ast.stmt, repeat: Optional[str]) -> Optional[str]:
    """How often the statements nested in ``statement`` run per graph call, where it runs ``repeat``."""
    if repeat == LOOP or isinstance(statement, (ast.While, ast.For)):
        return LOOP
    return BRANCH if isinstance(statement, ast.If) else repeat


def is_library(name: str) -> bool:
    return name.startswith(LIBRARY)


def is_plumbing(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return (name in PLUMBING or last in PLUMBING or hasattr(builtins, name)
            or last.startswith(("empty_strided", "data_ptr")))


def launches(tree: ast.Module, defined: set[str]) -> tuple[list[Call], list[str]]:
    """([Call] of each kernel in ``defined`` and library call, in the order they run, subgraph functions followed
    where they are called), and the names of other calls that are neither plumbing nor known (what the splitter
    did not understand).

    A call's argument numels are the elements of each buffer it is passed, where the wrapper states them
    (``assert_size_stride`` for inputs, ``empty_strided_*`` and ``reinterpret_tensor`` for buffers, aliases);
    None where a size is symbolic or unknown.
    """
    functions = _functions(tree)
    numel: dict[str, Optional[int]] = {}
    found, unknown = [], []
    for node, subgraph, repeat in _run_order(tree, functions):
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                numel[node.targets[0].id] = _numel(node.value, numel)
            continue
        assert isinstance(node, ast.Call)
        name = dotted_name(node.func)
        if name is None:
            continue
        if name.endswith(".run") and name[:-4] in defined:
            name = name[:-4]
        if name == "assert_size_stride" and len(node.args) > 1 and isinstance(node.args[0], ast.Name):
            numel[node.args[0].id] = _product(node.args[1])
        elif name in defined or is_library(name):
            found.append(Call(name, [_numel(a, numel) for a in node.args], subgraph, repeat))
        elif name not in functions and not is_plumbing(name) and "." not in name:
            unknown.append(name)  # a bare name called like a kernel but defined nowhere
    return found, unknown


def _numel(node: ast.expr, numel: dict[str, Optional[int]]) -> Optional[int]:
    """Elements of a wrapper expression: a buffer name, a new or reinterpreted buffer, c_void_p(x.data_ptr())."""
    if isinstance(node, ast.Name):
        return numel.get(node.id)
    if not isinstance(node, ast.Call):
        return None
    name = dotted_name(node.func) or ""
    if name.startswith("empty_strided") or name == "reinterpret_tensor":
        shape = node.args[0] if name.startswith("empty_strided") else node.args[1] if len(node.args) > 1 else None
        return _product(shape)
    if name == "c_void_p" and node.args and isinstance(node.args[0], ast.Call):  # torch 2.1's cpp launches
        inner = node.args[0].func
        return _numel(inner.value, numel) if isinstance(inner, ast.Attribute) else None
    return None


def _product(shape: Optional[ast.expr]) -> Optional[int]:
    if not isinstance(shape, ast.Tuple):
        return None
    sizes = [e.value for e in shape.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    return math.prod(sizes) if len(sizes) == len(shape.elts) else None  # a symbolic size: unknown
