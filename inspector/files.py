"""The files a report annotates: the sample, the user's own modules, and libraries (installed packages and the
standard library); never torch's own files, inspector's, or frames without a file (``<frozen runpy>``).
Below both collect (which files a record keeps: ``inspector.collect.files``) and the analysis (how a report names
them).

A file under a site-packages or dist-packages folder, or under the standard library, is a library; any other
file (an editable install included) is the user's.
"""

from __future__ import annotations

import os
import re
from typing import Optional, Protocol

LIBRARY = re.compile(r"(?:^<site-packages>|[/\\](?:site|dist)-packages)[/\\]")  # <site-packages>: redacted


class Folders(Protocol):
    """Where a run's own folders are: the probe's ``RawEnv`` as collect reads it, the analysis' ``Env``."""

    @property
    def stdlib(self) -> Optional[str]: ...

    @property
    def torch_dir(self) -> Optional[str]: ...

    @property
    def inspector_dir(self) -> Optional[str]: ...

    @property
    def inductor_cache_dir(self) -> Optional[str]: ...


def same_path(a: str, b: str) -> bool:
    """Whether two spellings of a path (absolute, or relative to some folder) name the same file."""
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))


def kind(path: str, env: Folders, sample_file: Optional[str]) -> Optional[str]:
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


def display(path: str, kind_: str, sample_path: str, sample_file: Optional[str], env: Folders) -> str:
    """How a report names a file: the sample as the user gave it, a library from its package folder
    (``pymoo/problems/single/g.py``), a user module beside the sample relative to it, one elsewhere as the sample
    is named: relative to where it was given from (``../lib/util.py``), or absolute."""
    if kind_ == "sample":
        return sample_path
    if kind_ == "library":
        return LIBRARY.split(path)[-1]
    if kind_ == "stdlib":
        return "stdlib/" + path[len(env.stdlib or ""):].lstrip("/")
    base = os.path.dirname(sample_file or "")
    relative = os.path.relpath(path, base) if base else path
    if not relative.startswith(".."):
        return os.path.join(os.path.dirname(sample_path), relative)
    given = os.path.normpath(sample_path)  # elsewhere: relative to where the sample was given from, as it was
    if os.path.isabs(given) or not sample_file or not os.path.normpath(sample_file).endswith(os.sep + given):
        return path
    return os.path.relpath(path, os.path.normpath(sample_file)[:-len(given) - 1] or os.sep)
