"""Stack frames in torch's output: Python tracebacks (provenance, nest records, graph-break messages) and the
``# File:`` comments of FX graphs (and torch 2.1's ``// ORIGIN:`` blocks).

Below both collect (which source files a record keeps: ``paths``) and the analysis (which line a frame names)."""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from inspector.source import Place

# a traceback frame and the code line under it
STACK_FRAME = re.compile(r'File "(.+?)", line (\d+), in (\S+)(?:\n[ \t]*(\S[^\n]*))?')
# FX graph comments (`# File: x.py:12 in fn, code: ...`) and 2.1 ORIGIN comments (`File "x.py", line 12, in fn\ code\`)
COMMENT_FRAME = re.compile(r'File:? "?([^",\n]+?\.py)"?(?:, line |:)(\d+)(?:,? in (\w+))?'
                           r'(?:, code: ([^\n]*)|\\\s*([^\\\n]*))?')
RESUME = re.compile(r"torch_dynamo_resume_in_(\w+?)_at_\d+")


@dataclass(frozen=True)
class Frame(Place):
    """A frame a traceback or an FX graph's comment names (``file`` as it names it)."""

    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    function: Optional[str]
    code: Optional[str]  # the source line as the frame quotes it


def gave_up(metrics: Mapping[str, Any], code: tuple[str, str, int]) -> bool:
    """Whether torch's metrics of a compile say it gave up on the frame of ``code`` (name, file, first line): no
    guarded code came of it, and why it failed (the frame then runs eagerly on every call)."""
    return metrics.get("has_guarded_code") is False and bool(metrics.get("fail_type")) and \
        (metrics.get("co_name"), metrics.get("co_filename"), metrics.get("co_firstlineno")) == code


def stack(text: str) -> list[Frame]:
    """The frames of a traceback, outermost first (a resumed frame named after the function it resumes)."""
    found = []
    for file, line, fn, code in STACK_FRAME.findall(text):
        resumed = RESUME.match(fn)
        found.append(Frame(resumed.group(1) if resumed else fn, code.strip() or None, file=file, line=int(line)))
    return found


def comments(text: str) -> list[Frame]:
    """The frames named by an FX graph's `# File:` comments (or ORIGIN blocks), in the graph's node order."""
    return [Frame(fn or None, (code or origin_code).strip() or None, file=file, line=int(line))
            for file, line, fn, code, origin_code in COMMENT_FRAME.findall(text)]


def inside(text: str, code: Mapping[str, Any]) -> bool:
    """Whether an FX graph's comments name a line of the function ``code`` ({"file", "line", "name", "end_line"}):
    its code was traced into that graph. torch 2.1's comments name no function: there the line range tells."""
    return any(f.file == code["file"] and code["line"] <= f.line <= code.get("end_line", f.line) and (
        f.function == code["name"] if f.function else "end_line" in code) for f in comments(text))


def unread_comments(text: str) -> list[str]:
    """The `# File:` comments of an FX graph that COMMENT_FRAME does not read (their lines get no evidence)."""
    return [line.strip() for line in text.splitlines() if "# File:" in line and not COMMENT_FRAME.search(line)]


def paths(texts: Iterable[str]) -> set[str]:
    """Every file path the frames of ``texts`` (tracebacks or FX graphs) name."""
    return {f.file for text in texts for f in stack(text) + comments(text)}
