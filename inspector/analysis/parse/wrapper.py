"""The wrapper of an Inductor output-code module: its ``call`` function, in every torch version's spelling.

``call(args)`` at the top level (torch 2.1) or ``Runner.call(self, args)`` (torch 2.13) launches the graph's
kernels and library calls in order, after allocating their buffers. This module is the one place that finds
it, names its calls and follows buffer sizes through it.
"""

import ast
import builtins
import math
import warnings

# calls the wrapper makes that are plumbing, not computation (every torch version from 2.1 on)
PLUMBING = {"assert_size_stride", "assert_alignment", "reinterpret_tensor", "alloc_from_pool", "c_void_p",
            "c_long", "c_int", "len", "args.clear", "get_raw_stream", "torch.cuda.set_device",
            "torch.cuda._DeviceGuard", "torch._C._cuda_getCurrentRawStream", "empty_strided", "device",
            "as_strided", "copy_", "run_intermediate_hooks", "maybe_profile", "record_function"}
LIBRARY = ("extern_kernels.", "aten.", "torch.ops.")


class WrapperError(Exception):
    """The module does not parse as Python; one line."""


def parse(output_code):
    """The module's syntax tree; WrapperError when it is not Python."""
    try:
        with warnings.catch_warnings():  # torch 2.1's ORIGIN comments hold invalid escapes: not ours to lint
            warnings.simplefilter("ignore")
            return ast.parse(output_code)
    except (SyntaxError, ValueError) as e:
        raise WrapperError(f"output code does not parse: {e}") from None


def call_functions(tree):
    """Every ``call`` function of the module (top level or a method), in source order."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call"]


def call_source(output_code, tree):
    """The text of the module's ``call`` functions."""
    return "\n".join(ast.get_source_segment(output_code, fn) or "" for fn in call_functions(tree))


def dotted_name(func):
    """``a.b.c`` for a call's function expression, or None (a subscript, a call result)."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return None


def _statements(tree):
    """Assignments and calls inside the ``call`` functions, in source order."""
    nodes = [n for fn in call_functions(tree) for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.Call))]
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


def is_library(name):
    return name.startswith(LIBRARY)


def is_plumbing(name):
    last = name.rsplit(".", 1)[-1]
    return (name in PLUMBING or last in PLUMBING or hasattr(builtins, name)
            or last.startswith(("empty_strided", "data_ptr")))


def launches(tree, defined):
    """[(name, argument numels)] for each call of a kernel in ``defined`` or a library call, in order, and the
    names of other calls that are neither plumbing nor known (what the splitter did not understand).

    A launch's argument numels are the elements of each buffer it is passed, where the wrapper states them
    (``assert_size_stride`` for inputs, ``empty_strided_*`` and ``reinterpret_tensor`` for buffers, aliases);
    None where a size is symbolic or unknown.
    """
    numel, found, unknown = {}, [], []
    for node in _statements(tree):
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                numel[node.targets[0].id] = _numel(node.value, numel)
            continue
        name = dotted_name(node.func)
        if name is None:
            continue
        if name.endswith(".run") and name[:-4] in defined:
            name = name[:-4]
        if name == "assert_size_stride" and len(node.args) > 1 and isinstance(node.args[0], ast.Name):
            numel[node.args[0].id] = _product(node.args[1])
        elif name in defined or is_library(name):
            found.append((name, [_numel(a, numel) for a in node.args]))
        elif not is_plumbing(name) and "." not in name:
            unknown.append(name)  # a bare name called like a kernel but defined nowhere
    return found, unknown


def _numel(node, numel):
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


def _product(shape):
    if not isinstance(shape, ast.Tuple):
        return None
    sizes = [e.value for e in shape.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    return math.prod(sizes) if len(sizes) == len(shape.elts) else None  # a symbolic size: unknown
