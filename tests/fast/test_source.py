"""The user's source, read one way (``inspector.source``): as Python decodes it, else from linecache (a notebook
cell); no other module reads it its own way."""

import linecache
import re

from conftest import ROOT
from inspector import source


def test_a_file_is_read_as_python_decodes_it_its_coding_line_included(tmp_path):
    latin = tmp_path / "latin.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1"))
    assert source.text(str(latin)) == "# -*- coding: latin-1 -*-\nname = 'café'\n"
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"x = 1  # \xff\n")  # Python lets a bad byte pass in a comment: the text replaces it
    assert source.text(str(broken)) == "x = 1  # \ufffd\n"


def test_a_line_is_numbered_as_python_numbers_it():
    path = "<cell 7>"
    linecache.cache[path] = (0, None, ["a = 1\r\n", "b = '\x0c'\r\n", "c = 3\n"], path)  # as IPython keeps a cell
    try:
        assert source.text(path) == "a = 1\r\nb = '\x0c'\r\nc = 3\n"
        assert source.lines(path) == ["a = 1", "b = '\x0c'", "c = 3"]  # str.splitlines would break at the form feed
        assert [source.line(path, n) for n in (0, 1, 2, 3, 4, 5)] == ["", "a = 1", "b = '\x0c'", "c = 3", "", ""]
    finally:
        del linecache.cache[path]
    assert source.text("<not kept anywhere>") is None and source.line("<not kept anywhere>", 1) == ""


def test_no_other_module_reads_source_files_its_own_way():
    own = re.compile(r"\blinecache\b|detect_encoding|tokenize\.open")
    found = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "inspector").rglob("*.py"))
             if p.name != "source.py" and own.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_every_value_that_names_a_file_and_a_line_is_a_place():
    """One source model: a value with a ``file`` and a ``line`` is an ``inspector.source.Place``, wherever it is made
    (the frames of torch's output, the parsers, the model, the rewriter, contracts), so that one function says where
    it is. The raw record's values (``inspector.raw``) are the probe's JSON as it wrote it, every field optional:
    the analysis makes Places of them."""
    import dataclasses
    import importlib
    import pkgutil

    import inspector
    found = []
    for module in pkgutil.walk_packages(inspector.__path__, "inspector."):
        if module.name.startswith(("inspector.probe", "inspector.__main__", "inspector.raw")):
            continue  # the probe's modules import torch where they run; the frames it reads are inspector.frames'
        for name, value in vars(importlib.import_module(module.name)).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.name:
                names = {f.name for f in dataclasses.fields(value)}
                if {"file", "line"} <= names and not issubclass(value, source.Place):
                    found.append(f"{module.name}.{name}")
    assert found == []
