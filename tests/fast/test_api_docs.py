"""docs/api.md, the Python API's page, against the code: each function, class and method it lists has the signature
it says (types from ``typing.get_type_hints``), and it lists every public one."""

import ast
import dataclasses
import inspect
import re
import sys
import types
import typing

import inspector
from conftest import ROOT
from inspector import api

PAGE = ROOT / "docs" / "api.md"
CLASSES = ("Run", "Report", "Breaks", "Comparison")


def _spell(hint):
    """A type as the page writes it: ``str | None``, ``Callable[[str], None]``, ``Sequence[Run]``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in (None, type(None)):
        return "None"
    if hint is typing.Any:
        return "Any"
    if isinstance(hint, list):
        return "[" + ", ".join(_spell(a) for a in hint) + "]"
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_spell(a) for a in args)
    if origin is not None:
        said = ["..." if a is Ellipsis else _spell(a) for a in args]
        return f"{origin.__name__}[{', '.join(said)}]"
    return hint.__name__


def _signature(fn, name):
    """``def name(...) -> ...`` of a function (a property's getter), as the page writes it."""
    fn = fn.fget if isinstance(fn, property) else fn
    hints, parts, star = typing.get_type_hints(fn), [], False
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
        star = star or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        text += f": {_spell(hints[p.name])}" if p.name in hints else ""
        parts.append(text + (f" = {p.default!r}" if p.default is not p.empty else ""))
    return f"def {name}({', '.join(parts)}) -> {_spell(hints['return'])}"


def _said(node):
    """A function's signature as the page writes it."""
    return f"def {node.name}({ast.unparse(node.args)}) -> {ast.unparse(node.returns)}"


def _page():
    """The page's Python blocks, parsed: (functions, classes) by name."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    body = [node for block in blocks for node in ast.parse(block).body]
    return ({n.name: n for n in body if isinstance(n, ast.FunctionDef)},
            {n.name: n for n in body if isinstance(n, ast.ClassDef)})


def _flat(text):
    return re.sub(r"\s+", "", text)


def test_the_page_lists_every_public_function_and_class():
    functions, classes = _page()
    exported = {n for n in inspector.API if not isinstance(getattr(api, n), type)} | {"check"}
    assert set(functions) == exported
    assert set(classes) == set(CLASSES) and {n for n in inspector.API if isinstance(getattr(api, n), type)} <= set(
        CLASSES)


def test_each_function_has_the_signature_the_page_says():
    for name, node in _page()[0].items():
        fn = inspector.check if name == "check" else getattr(api, name)
        assert _flat(_said(node)) == _flat(_signature(fn, name)), name


def test_each_class_has_the_methods_and_fields_the_page_says():
    for name, node in _page()[1].items():
        cls = getattr(api, name)
        said = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        public = {k: v for k, v in vars(cls).items() if (not k.startswith("_") or k == "__init__")
                  and (callable(v) or isinstance(v, property))}
        if dataclasses.is_dataclass(cls):  # its __init__ is its fields'
            del public["__init__"]
        assert set(said) == set(public), name
        for method, fn in public.items():
            assert _flat(_said(said[method])) == _flat(_signature(fn, method)), f"{name}.{method}"
        if dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls)
            fields = [f"{f.name}: {_spell(hints[f.name])} = {f.default!r}" for f in dataclasses.fields(cls)]
            assert [_flat(ast.unparse(n)) for n in node.body if isinstance(n, ast.AnnAssign)] == [
                _flat(f) for f in fields], name



def test_inspector_render_stays_the_api_function_once_the_renderers_are_imported():
    """Importing the renderers binds the subpackage inspector.render to the package's ``render``: called, it is the
    API's."""
    import inspector.render
    record = ROOT / "tests/fixtures/records/torch-2.13.0/trig.json"
    assert inspector.report is api.report and "inspector.render" in sys.modules
    assert inspector.render(record).name == "trig" and callable(inspector.render)
    from inspector.render import html
    assert html.__name__ == "inspector.render.html"
