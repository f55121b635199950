"""Words only in render: the analysis builds no sentence and keeps none. An f-string, a ``%`` or ``.format``
template, or a ``+`` concatenation in ``inspector/analysis/`` whose constant text holds two words (in a row, or apart:
"individual {i}: expected {e}") builds prose, and belongs in ``inspector/render/`` (``said.py``), fed the facts the
analysis keeps. Keys, ids and places, where only
punctuation joins values (``f"{vid}: {p}"``, ``f"{file}:{line}"``, ``f"lines {a}-{b}"``), are not prose; nor is an
exception's message (``raise``), which is for the developer, not the reader of a report."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANALYSIS = ROOT / "inspector" / "analysis"
PROSE = re.compile(r"[A-Za-z]+[ ]+[A-Za-z]+")  # two words in a row
WORD = re.compile(r"[A-Za-z]{2,}")  # a word, where the text's parts hold two apart


def _texts(node: ast.AST) -> list[str]:
    """The constant text of a string-building expression: an f-string's, a ``%`` or ``.format`` template's, or a
    ``+`` concatenation's constant operands."""
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return [node.left.value] if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) else []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [s.value for s in (node.left, node.right) if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return [node.func.value.value]
    return []


def prose(source: str) -> list[int]:
    """The lines of ``source`` where an expression builds prose (outside ``raise`` statements)."""
    tree = ast.parse(source)
    raised = {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    return sorted({n.lineno for n in ast.walk(tree) if id(n) not in raised
                   and (any(PROSE.search(t) for t in _texts(n)) or len(WORD.findall(" ".join(_texts(n)))) > 1)})


def test_the_definition_catches_sentences_and_lets_keys_ids_and_places_pass():
    caught = ['f"{n} kernels ran serial"', '"ran as " + name', '"%d loops were unrolled" % n',
              '"{} loop nests".format(n)', 'f"{a}" + " of the call"', 'f"individual {i}: expected {e}, got {g}"']
    passed = ['f"{vid}: {p}"', 'f"{file}:{line}"', 'f"lines {a}-{b}"', 'f"{k.id}#{n.index}"', '"; ".join(x)',
              'raise ValueError(f"not a record: {x}")', '"x" + y', 'f"graph {g}"',
              'rf"\\b{name}\\b"']
    assert all(prose(c) for c in caught), [c for c in caught if not prose(c)]
    assert not [p for p in passed if prose(p)]


SENTENCE = re.compile(r"[A-Za-z]{2,}(?: +[A-Za-z'`]{2,}){4,}")  # five words in a row
# torch's own words, which the break parser finds in its messages: never said by inspector as its own
TORCH_PHRASES = {"*** While handling this graph break, another graph break occurred",
                 "The above exception occurred while processing the following code",
                 "Encountered graph break when attempting to (trace \\w+)",
                 "Encountered graph break that we cannot resume from", "Failed to handle graph break gracefully",
                 "graph breaks in loops are not supported", "output shape depends on input"}


def sentences(source: str) -> list[str]:
    """The string constants of ``source`` holding five words in a row, but docstrings and exceptions' messages."""
    tree = ast.parse(source)
    skipped = {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)} | {
        id(n.body[0].value) for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in skipped and SENTENCE.search(n.value)]


def test_the_analysis_keeps_no_sentence_of_its_own():
    """A sentence kept whole in the analysis (a constant, not built) is as much prose: its facts belong in the model
    (a closed set of words, ``BreakFix``, say) and its words in render; only torch's phrases the parser looks for
    are left, each still there."""
    found = {text: str(p.relative_to(ROOT)) for p in sorted(ANALYSIS.rglob("*.py"))
             for text in sentences(p.read_text(encoding="utf-8"))}
    assert sentences('x = "the rerun compiled nothing of it"\n') and not sentences('"""A docstring of five words."""')
    assert not {t: f for t, f in found.items() if t not in TORCH_PHRASES}, "sentences kept in the analysis"
    assert TORCH_PHRASES <= set(found)


def test_the_analysis_builds_no_sentence():
    found = {str(p.relative_to(ROOT)): prose(p.read_text(encoding="utf-8")) for p in sorted(ANALYSIS.rglob("*.py"))}
    built = {f: lines for f, lines in found.items() if lines}
    assert not built, f"prose built in the analysis (words belong in inspector/render/said.py): {built}"


def test_every_closed_reason_the_analysis_keeps_has_its_words_and_a_rewrite_names_what_the_analysis_says():
    """A break's usual rewrite and why a figure is missing are kept as words of a closed set (``BreakFix``,
    ``Unmeasured``): each has its sentence in render, and the names a rewrite's sentence gives are those the analysis
    leaves out of torch's hints (``parse.breaks.NAMES``: a hint naming torch.where is not said again beside a
    rewrite that does)."""
    from inspector.analysis.fixes import NAMED
    from inspector.analysis.parse.breaks import NAMES
    from inspector.model import BreakFix, Unmeasured
    from inspector.render.said import BREAK_FIXES, UNMEASURED

    assert set(BREAK_FIXES) == set(BreakFix) and set(UNMEASURED) == set(Unmeasured)
    named = {fix: {n.split(".")[-1] for n in NAMED.findall(words)} for fix, words in BREAK_FIXES.items()}
    assert named == {fix: NAMES.get(fix, set()) for fix in BreakFix}
