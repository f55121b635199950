"""The files a report annotates: the sample, the user's own modules, and libraries (installed packages and the
standard library); never torch's own files, inspector's, or frames without a file (``<frozen runpy>``).

A file under a site-packages or dist-packages folder, or under the standard library, is a library; any other
file (an editable install included) is the user's.
"""

import os
import re

from inspector.analysis.parse import frames
from inspector.raw import RawCapture

LIBRARY = re.compile(r"(?:^<site-packages>|[/\\](?:site|dist)-packages)[/\\]")  # <site-packages>: redacted


def same_path(a, b):
    """Whether two spellings of a path (absolute, or relative to some folder) name the same file."""
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))


def kind(path, env, sample_file):
    """sample | user | library | stdlib (a library too: the standard library's), or None for a file no report
    annotates (torch's, inspector's, Inductor's generated modules, no file)."""
    if sample_file and same_path(path, sample_file):
        return "sample"
    redacted = LIBRARY.match(path) or path.startswith("<stdlib>")
    if (path.startswith("<") and not redacted) or not path.endswith(".py"):
        return None  # <frozen runpy>, <string>
    for folder in (env.torch_dir, env.inspector_dir, env.inductor_cache_dir):
        if folder and path.startswith(folder.rstrip("/") + "/"):
            return None
    if re.search(r"[/\\](?:site|dist)-packages[/\\]torch[/\\]|[/\\]inspector[/\\]probe[/\\]", path):
        return None  # records made before the probe named these folders
    if LIBRARY.search(path):
        return "library"
    stdlib = env.stdlib
    return "stdlib" if stdlib and path.startswith(stdlib.rstrip("/") + "/") else "user"


def display(path, kind_, sample_path, sample_file, env):
    """How a report names a file: the sample as the user gave it, a library from its package folder
    (``pymoo/problems/single/g.py``), a user module beside the sample relative to it."""
    if kind_ == "sample":
        return sample_path
    if kind_ == "library":
        return LIBRARY.split(path)[-1]
    if kind_ == "stdlib":
        return "stdlib/" + path[len(env.stdlib or ""):].lstrip("/")
    base = os.path.dirname(sample_file or "")
    relative = os.path.relpath(path, base) if base else path
    if relative.startswith(".."):
        return path
    return os.path.join(os.path.dirname(sample_path), relative)


def referenced(record):
    """Every file path the raw record's stacks and FX graphs name, and where each variant's code is (the sample
    included)."""
    texts, code = [], set()
    for v in record.variants:
        code.add(v.code.file if v.code else None)
        capture = v.capture or RawCapture.from_json({})
        texts += [b.text or "" for b in capture.breaks or []]
        for g in capture.graphs or []:
            texts.append(g.fx_graph or "")
            texts += [s for stacks in (g.kernel_stack_traces or {}).values() for s in stacks]
            texts += [o.stack for n in g.nests or [] for o in n.origins or []]
    return (frames.paths(texts) | code) - {None}


def read(record, reader=None):
    """{path: source} of the user and library files the record's evidence names, and of the user's files that ran
    as Python (a library's only where other evidence names it), read from disk (or by ``reader(path)``, which
    returns the text or None): the raw facts a report needs to annotate them later, anywhere. Files that cannot be
    read are left out."""
    sample_file = record.sample.file
    named = referenced(record)
    traced = {p.file for v in record.variants for p in v.python_lines or []} - {None}
    found = {}
    for path in sorted(named | traced):
        if kind(path, record.env, sample_file) in (("user", "library", "stdlib") if path in named else ("user",)):
            text = (reader or from_disk)(path)
            if text is not None:
                found[path] = text
    return found


def from_disk(path):
    """A text file's contents, or None if it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None
