"""Which compiled function a compile belongs to, by torch's own frame (stdlib only): the code object Dynamo names in
a compile's metrics (``co_name``, ``co_filename``, ``co_firstlineno``) and in its recompile-limit warning, a resume
function (the code after a graph break, ``torch_dynamo_resume_in_f_at_12``) being its function's, and every fact
of one compile id (graph, break, machine code) going where its frame goes."""

import functools
import re
import sys
from typing import Any, Callable, Optional, TypeVar, cast

from inspector.record import compile_key

RESUMED = "torch_dynamo_resume_in_"  # the name Dynamo gives the code after a graph break
RESUME = re.compile(rf"^{RESUMED}(.+)_at_(\d+)$")
# the recompile limit's warning: "   function: 'g' (/path/x.py:12)"
LIMIT_FUNCTION = re.compile(r"function: '([^']+)' \((.+):(\d+)\)")
PARTS = ("graphs", "breaks", "limits", "machine_code")  # what a take() holds per compile, split by frame

Code = tuple[str, str, int]  # (name, file, first line) of a code object, as torch names it
F = TypeVar("F", bound=Callable[..., Any])


def without_dynamo(hook: F) -> F:
    """``hook`` (a signal handler, a trace function: inspector's code that runs inside the program's compiled call)
    run with torch's frame hook off, else Dynamo compiles its frames as the program's (new compile ids, a compile's
    seconds in the program's call); where torch is not loaded, as it is."""
    @functools.wraps(hook)
    def run(*args: Any, **kwargs: Any) -> Any:
        set_hook = getattr(sys.modules.get("torch._C._dynamo.eval_frame"), "set_eval_frame", None)
        if set_hook is None:
            return hook(*args, **kwargs)
        before = set_hook(None)
        try:
            return hook(*args, **kwargs)
        finally:
            set_hook(before)
    return cast(F, run)


def code_of(code: Any) -> Code:
    return code.co_name, code.co_filename, code.co_firstlineno


def owner(code: Code, functions: list[Any]) -> Optional[Any]:
    """The function (of ``functions``, each with ``code_object`` and ``code`` {file, line, end_line}) whose code
    ``code`` is: its own, or a resume function of it (recursively: the code after a break after a break)."""
    name, file, line = code
    for f in functions:
        if f.code_object is not None and code_of(f.code_object) == code:
            return f
    resumed = RESUME.match(name)
    if not resumed:
        return None
    inner, at = resumed.group(1), int(resumed.group(2))
    if RESUME.match(inner):
        return owner((inner, file, line), functions)
    for f in functions:
        c = f.code
        if c and c.get("name") == inner and c.get("file") == file and c["line"] <= at <= c.get("end_line", at):
            return f
    return None


def split(taken: dict[str, Any], frame_owner: Callable[[Optional[str], Optional[Code]], Any],
          limit_owner: Callable[[str], Any]) -> dict[Any, dict[str, Any]]:
    """``taken`` (a Capture's take) split into one take per owner: ``frame_owner(compile id, its code or None)`` for a
    graph (its metrics name the code) and for what else has its compile id, ``limit_owner(text)`` for a limit's
    warning; what names no compile goes with the first owner found (None: none). Each piece keeps the take's other
    facts (mechanism, ...), its problems and count of records only the first."""
    owners: dict[Optional[int], Any] = {}
    pieces: dict[Any, dict[str, Any]] = {}

    def piece(key: Any) -> dict[str, Any]:
        if key not in pieces:
            pieces[key] = {**{k: v for k, v in taken.items() if k not in PARTS},
                           **({"problems": [], "records": 0} if pieces else {}), **{k: [] for k in PARTS}}
        return pieces[key]

    for g in taken.get("graphs", []):
        metrics = g.get("metrics") or {}
        code = (metrics["co_name"], metrics["co_filename"], metrics["co_firstlineno"]) \
            if metrics.get("co_name") and metrics.get("co_filename") else None
        frame = (compile_key(g.get("compile_id")) or (None,))[0]
        if frame not in owners or code is not None:
            owners[frame] = frame_owner(g.get("compile_id"), code)
        piece(owners[frame])["graphs"].append(g)
    for key, id_key in (("breaks", "compile_id"), ("machine_code", "graph")):
        for item in taken.get(key, []):
            frame = (compile_key(item.get(id_key)) or (None,))[0]
            if frame in owners:
                who = owners[frame]
            elif frame is None and pieces:  # a kernel loaded that no graph of this take holds
                who = next(iter(pieces))
            else:
                who = owners[frame] = frame_owner(item.get(id_key), None)
            piece(who)[key].append(item)
    for text in taken.get("limits", []):
        piece(limit_owner(text))["limits"].append(text)
    if not pieces:
        piece(frame_owner(None, None))
    return pieces


def limit_code(text: str) -> Optional[Code]:
    """The code object a recompile-limit warning names, or None."""
    found = LIMIT_FUNCTION.search(text)
    return (found.group(1), found.group(2), int(found.group(3))) if found else None
