"""The check a rewrite must pass before it is advice: the original (instrumented to count its branches' arms) and
the rewrite on one population, same values within the relative tolerance of the variants' cross-check, inf and NaN
in the same places; an individual for which the original raised is a mismatch. It runs wherever the sample's
namespace is (the probe, or this process with the sample imported)."""

from __future__ import annotations

import ast
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from inspector.rewrite.branches import Arms, install, instrumented
from inspector.rewrite.model import (Arm, Check, Dialect, Drawn, Mismatch, Rewrite, RewriteKind, Row, Unit,
                                     Verdict)
from inspector.rewrite.program import Module, Program
from inspector.tolerance import RTOL, close

ROWS = 16  # single-row populations a variant's rewrite is also checked on (its branches on one individual)
SAMPLE = 2000  # the individuals a per-individual function's rewrite is checked on, spread over the population
SCAN = 100_000  # the other individuals it may run the original on, in order, for a branch's arm none of those took


@dataclass(frozen=True)
class Outputs:
    """Values per individual (rows of ``values``) and, per individual, what went wrong in the original there."""

    values: np.ndarray
    wrong: dict[int, str]


class Namespaces:
    """Copies of the sample's namespace and of its own modules' (found through the functions the sample holds, or
    sys.modules), so that instrumenting and running a rewrite changes nothing of the user's."""

    def __init__(self, program: Program, namespace: Mapping[str, object]) -> None:
        self.program = program
        self.copies: dict[str, dict[str, object]] = {"": dict(namespace)}
        self.namespace = namespace

    def __call__(self, module: Module) -> dict[str, object]:
        if module.name not in self.copies:
            found = sys.modules.get(module.name)
            source = vars(found) if found is not None else next(
                (v.__globals__ for v in self.namespace.values()
                 if getattr(v, "__module__", None) == module.name and hasattr(v, "__globals__")), {})
            self.copies[module.name] = dict(source)
        return self.copies[module.name]

    def rebind(self, originals: dict[int, object]) -> None:
        """Point every copy's names at the instrumented functions (by the original function objects' ids)."""
        for copy in self.copies.values():
            for key, value in list(copy.items()):
                if id(value) in originals and callable(value):
                    copy[key] = originals[id(value)]


def originals(rewrite: Rewrite, program: Program, namespace: Mapping[str, object],
              extra: tuple[tuple[Module, ast.FunctionDef], ...] = ()) -> tuple[Callable[..., object], Arms]:
    """The user's ``rewrite.target`` with its functions instrumented (in copies of their namespaces)."""
    spaces = Namespaces(program, namespace)
    functions = list(extra) + [(m, m.functions[r.user]) for r in rewrite.functions
                               if (m := program.module(r.module)) is not None and r.user in m.functions]
    before = {(m.name, f.name): spaces(m).get(f.name) for m, f in functions}
    arms = Arms(len(rewrite.branches))
    install(instrumented(functions), spaces, arms)
    spaces.rebind({id(before[(m.name, f.name)]): spaces(m)[f.name] for m, f in functions
                   if before[(m.name, f.name)] is not None})
    target = spaces(program.main).get(rewrite.target)
    if not callable(target):
        raise LookupError(f"{rewrite.target} is not in the sample's namespace")
    return target, arms


def rewritten(rewrite: Rewrite, namespace: Mapping[str, object]) -> Callable[..., object]:
    """The rewrite's entry function, defined in a copy of the sample's namespace."""
    space = dict(namespace)
    exec(compile(rewrite.program_source, f"<rewrite of {rewrite.target}>", "exec"), space)
    entry = space[rewrite.entry]
    assert callable(entry)
    return entry


def check(rewrite: Rewrite, program: Program, namespace: Mapping[str, object], population: np.ndarray,
          rtol: float | None = None, sample: int | None = None) -> Check:
    """The rewrite against the user's function on ``population`` (NumPy, as the sample makes it): per individual
    for a per-individual function, else whole and on each of its first ROWS individuals alone. ``sample``: a
    per-individual function is checked on at most that many individuals spread over the population, and on each
    further individual (of the first SCAN others) that takes an arm of a branch none before it took (``chosen``;
    the Check's ``drawn`` says how many); None: on every individual."""
    rtol = rtol or RTOL
    target, arms = originals(rewrite, program, namespace)
    entry = rewritten(rewrite, namespace)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if rewrite.kind is RewriteKind.VECTORIZED:
            return individuals_checked(rewrite, target, entry, population, rtol, arms, sample)
        return calls(rewrite, target, entry, population, rtol, arms)


def individuals_checked(rewrite: Rewrite, target: Callable[..., object], entry: Callable[..., object],
                        population: np.ndarray, rtol: float, arms: Arms, sample: int | None) -> Check:
    """A per-individual function's rewrite on the individuals ``chosen`` picks (all, without ``sample``): the
    original on each, the rewrite on them as one population."""
    rows, drawn = chosen(target, population, rewrite.row, arms, sample)
    picked = population if rows is None else population[rows]
    expected = per_individual(target, picked, rewrite.row, arms)
    try:
        got = as_array(entry(converted(picked, rewrite.dialect)))
    except Exception as e:  # the rewrite failed: a failed check, with what it raised
        return failed(rewrite, Unit.INDIVIDUALS, len(picked), rtol, arms, population, e, drawn)
    mismatch = compared(expected, got, rtol)
    if mismatch is not None and rows is not None:  # said by its place in the population
        mismatch = Mismatch(int(rows[mismatch.individual]), mismatch.expected, mismatch.got, mismatch.raised,
                            mismatch.differing)
    return outcome(rewrite, Unit.INDIVIDUALS, len(picked), rtol, mismatch, arms, population, got, drawn)


def chosen(target: Callable[..., object], population: np.ndarray, row: Row, arms: Arms, sample: int | None
           ) -> tuple[np.ndarray | None, Drawn | None]:
    """(the rows to check, in order, and how they were drawn; or (None, None): all of them): at most ``sample``
    spread evenly over the population, then, while an arm of the user's branches is taken by none of those, each
    individual of the first SCAN others (in order) that takes one none before it took, or for which the original
    raises. ``arms`` is left counting nothing: the check's own evaluations count."""
    n = len(population)
    if sample is None or n <= sample:
        return None, None
    spread = np.unique(np.linspace(0, n - 1, num=max(1, sample)).round().astype(np.int64))
    per_individual(target, population[spread], row, arms)
    seen = {a for a, count in arms.counts.items() if count}
    found: list[int] = []
    others = np.setdiff1d(np.arange(n), spread, assume_unique=True)[:SCAN]
    looked = 0
    for start in range(0, len(others), 1000):
        if len(seen) == len(arms.counts):
            break
        chunk = others[start:start + 1000]
        for i, individual in zip(chunk, population[chunk].tolist() if row is Row.LIST else population[chunk]):
            looked += 1
            try:
                target(individual)
                raised = False
            except Exception:  # the check says so: an individual for which the original raised is a mismatch
                raised = True
            new = arms.taken - seen
            arms.taken = set()
            if new or raised:
                found.append(int(i))
                seen |= new
                if len(seen) == len(arms.counts):
                    break
    arms.reset()
    rows = np.unique(np.concatenate([spread, np.asarray(found, dtype=np.int64)]))
    return rows, Drawn(n, len(spread), len(rows) - len(spread), looked)


def calls(rewrite: Rewrite, target: Callable[..., object], entry: Callable[..., object], population: np.ndarray,
          rtol: float, arms: Arms) -> Check:
    """A variant's rewrite: whole, then on single rows (which take the branches one individual takes)."""
    pieces = [(0, population)] + [(i, population[i:i + 1]) for i in range(min(ROWS, len(population)))]
    got: np.ndarray | None = None
    for offset, piece in pieces:
        data = converted(piece, rewrite.dialect)
        try:
            expected = Outputs(as_array(target(data)), {})
        except Exception as e:
            expected = Outputs(np.full(len(piece), np.nan), {i: f"{type(e).__name__}: {e}" for i in range(len(piece))})
        arms.close()
        try:
            result = as_array(entry(converted(piece, rewrite.dialect)))
        except Exception as e:
            return failed(rewrite, Unit.CALLS, len(pieces), rtol, arms, population, e)
        got = result if got is None else got
        mismatch = compared(expected, result, rtol)
        if mismatch is not None:
            shifted = Mismatch(mismatch.individual + offset, mismatch.expected, mismatch.got, mismatch.raised,
                               mismatch.differing)
            return outcome(rewrite, Unit.CALLS, len(pieces), rtol, shifted, arms, population, result)
    return outcome(rewrite, Unit.CALLS, len(pieces), rtol, None, arms, population, got)


def converted(population: np.ndarray, dialect: Dialect) -> object:
    if dialect is Dialect.TORCH:
        import torch
        return torch.from_numpy(np.ascontiguousarray(population))
    return population


def as_array(output: object) -> np.ndarray:
    """A NumPy or torch result as an ndarray."""
    detach = getattr(output, "detach", None)
    if detach is not None:
        output = detach().cpu().numpy()
    return np.asarray(output)


def per_individual(target: Callable[..., object], population: np.ndarray, row: Row, arms: Arms) -> Outputs:
    """The original on each individual (a list as the Python variant gets it, or an ndarray row): its values, and
    where it raised or gave something other than numbers."""
    rows: list[object] = population.tolist() if row is Row.LIST else list(population)
    values: list[object] = []
    wrong: dict[int, str] = {}
    for i, individual in enumerate(rows):
        try:
            values.append(target(individual))
        except Exception as e:
            values.append(None)
            wrong[i] = f"raised {type(e).__name__}: {e}"
        arms.close()
    width = max((len(v) for v in values if isinstance(v, (tuple, list))), default=0)
    table = np.full((len(values), width) if width else len(values), np.nan)
    for i, v in enumerate(values):
        if i in wrong:
            continue
        try:
            item = np.asarray(v, dtype=np.float64)
            if item.shape != table.shape[1:]:
                raise TypeError(f"gave {v!r}")
            table[i] = item
        except (TypeError, ValueError):
            wrong[i] = f"gave {v!r}"
    return Outputs(table, wrong)


def individuals(expected: np.ndarray, got: np.ndarray, rtol: float) -> np.ndarray:
    """Per individual (a row), whether all its values match (``tolerance.close``)."""
    ok = close(expected, got, rtol)
    return np.asarray(ok.reshape(len(ok), -1).all(axis=1)) if ok.ndim > 1 else ok


def compared(expected: Outputs, got: np.ndarray, rtol: float) -> Mismatch | None:
    """The first individual that differs (or None)."""
    values = expected.values
    if got.shape != values.shape:
        return Mismatch(0, f"shape {values.shape}", f"shape {got.shape}", False, len(values))
    try:
        ok = individuals(values.astype(np.float64), got.astype(np.float64), rtol)
    except (TypeError, ValueError) as e:
        return Mismatch(0, "numbers", f"not comparable ({e})", False, len(values))
    for i in expected.wrong:
        ok[i] = False
    bad = np.flatnonzero(~ok)
    if not bad.size:
        return None
    first = int(bad[0])
    return Mismatch(first, expected.wrong.get(first, repr(values[first].tolist())), repr(got[first].tolist()),
                    first in expected.wrong, int(bad.size))


def outcome(rewrite: Rewrite, unit: Unit, evaluations: int, rtol: float, mismatch: Mismatch | None, arms: Arms,
            population: np.ndarray, got: np.ndarray | None, drawn: Drawn | None = None) -> Check:
    return Check(rewrite.target, rewrite.entry, Verdict.FAILED if mismatch else Verdict.MATCHED, unit, evaluations,
                 rtol, mismatch, None, taken(rewrite, arms), str(population.dtype),
                 None if got is None else str(got.dtype), drawn)


def failed(rewrite: Rewrite, unit: Unit, evaluations: int, rtol: float, arms: Arms, population: np.ndarray,
           error: Exception, drawn: Drawn | None = None) -> Check:
    return Check(rewrite.target, rewrite.entry, Verdict.FAILED, unit, evaluations, rtol, None,
                 f"{type(error).__name__}: {error}", taken(rewrite, arms), str(population.dtype), None, drawn)


def taken(rewrite: Rewrite, arms: Arms) -> tuple[Arm, ...]:
    return tuple(Arm(b, t, arms.counts.get((b.id, t), 0)) for b in rewrite.branches for t in (True, False))
