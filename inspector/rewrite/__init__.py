"""Rewrites inspector writes for the user, each checked against the original before it is advice:

- ``vectorize(program, function, dialect, row)``: a per-individual function (and the program's functions it calls)
  written over the whole population in NumPy or torch -> ``Rewrite`` or ``Declined``;
- ``rewrite_breaks(program, function, dialect)``: a NumPy or torch variant with the mechanical rewrites of its
  breaks made -> ``Breaks`` (the Rewrite, or None, and what it declined, with why);
- ``port(program, function)`` (``inspector.rewrite.port``): a NumPy function over the whole population written in
  torch -> ``Rewrite`` or ``Declined`` (its ``checked`` runs it against the original);
- ``per_row(program, function)`` (``inspector.rewrite.rows``): a function over the population that loops over its
  rows, as the program with its loop body as a per-individual function in its place (for ``vectorize``), or None;
- ``check(rewrite, program, namespace, population, rtol)``: the rewrite against the original on a population ->
  ``Check`` (matched or failed, the first mismatching individual, the branches' arms no individual took).

``read_program(path)`` reads the sample and its own modules; the rewriter reads code (``ast``), it runs nothing;
``check`` runs both where the sample's namespace is.
"""

from inspector.rewrite.breaks import rewrite_breaks
from inspector.rewrite.check import check
from inspector.rewrite.model import (Arm, Branch, Breaks, Change, ChangeKind, Check, Declined, Dialect, Drawn,
                                     Mismatch, Note, Reason, Renamed, Rewrite, RewriteKind, Row, Topic, Unit, Verdict)
from inspector.rewrite.program import Program, program_from_sources, read_program
from inspector.rewrite.vectorize import vectorize
from inspector.source import Span

__all__ = ["Arm", "Branch", "Breaks", "Change", "ChangeKind", "Check", "Declined", "Dialect", "Drawn", "Mismatch",
           "Note", "Program", "Reason", "Renamed", "Rewrite", "RewriteKind", "Row", "Span", "Topic", "Unit", "Verdict",
           "check", "program_from_sources", "read_program", "rewrite_breaks", "vectorize"]
