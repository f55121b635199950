"""Where a program's time goes (``inspector run``; stdlib and numpy only), and the real inputs of its hot functions.

While the program runs, a sampler (``ITIMER_PROF``: every SAMPLE_S of CPU time, the main thread's stack; about 1 % of
the run's time, where cProfile's hook on every call made a plain GA 2x slower) tells which of the program's own
functions and lines hold the time, and which lines called them (not while a watch's hook runs: it slows what it
watches). Python takes a signal where it next checks for one (a function's start, a loop's jump), so that a sample
stands for the time since the one before (``_ticks``: a long call of C code, NumPy's arithmetic, is one sample), and
one taken as a function not the program's began is its caller's (the C code of a line, before np.sum's dispatcher).
A function that holds ARM_SHARE of the samples and takes an individual or a population (the hottest such one, while
none is armed, half that share: a library's loop, DEAP's, may hold most of the run), or one that a line
holding that share names (a comprehension's, ``map``'s, ``np.apply_along_axis``'s function, too short to be sampled
itself: a sample falls where Python checks for signals, a loop's jump, seldom a short call), is *armed*: a call hook
(``sys.settrace``, line events off) watches its next calls, for WINDOW_S at most (IDLE_S while it is not called), and
copies what one round of them got (a generation): the individuals a comprehension, ``map``, a ``for`` loop or
``np.apply_along_axis`` gave it one at a time (a round: the calls from one caller frame, up to that frame's next
other call or its return; a comprehension's length read from its iterator), or the 2-D population it got whole, and
what each call returned. The copy is bounded (MAX_ROWS, MAX_BYTES: said as sampled; the round's other calls are
counted); the program's values are only read, never changed; a round seen from its middle is skipped where its size
is not known. The hook slows every call of the program (3x-5x on DEAP's deepcopies), so between two rounds made by
one frame (a loop's, or a comprehension's function) it is off: the first gap is measured by the sampler (the next
round seen begun), and the hook is back after REST_SHARE of it, before the next round, which is then seen whole.
The rounds of each function's calls are counted: those a sample fell in (the function, or a line calling it, found
running where the sample before did not), and those the hook saw begin while it held the sampler off.
``facts`` gives the record's ``program.hotspots``; ``inspector.probe.experiment`` runs the experiment on the copies
after the program.
"""

from __future__ import annotations

import functools
import numbers
import os
import re
import signal
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from inspector import source
from inspector.probe.frames import RESUMED, without_dynamo

SAMPLE_S = 0.005  # CPU seconds between two samples of the stack
ARM_AFTER = 20  # samples before any function is armed
ARM_SHARE = 0.15  # of the samples a function's frames must be in to be armed
MAX_ARMED = 3  # functions armed over a run
WINDOW_S = 5.0  # wall seconds an armed function is watched for a whole round of calls
IDLE_S = 0.5  # wall seconds a function seen running is watched for its next call (else it waits to be seen again)
RETRIES = 5  # times a function not called while watched waits to be seen running again
RESTS = 3  # times a watch lets the hook go between two rounds of calls from one caller frame
REST_SHARE = 0.9  # of the last gap between two rounds the sampler measured, the hook off before the next round
SINGLE_ROUNDS = 20  # rounds of one call each after which an armed function is left alone
MAX_ROWS = 20_000  # individuals copied per function (the round's other calls are counted)
MAX_BYTES = 256 << 20  # bytes of copies per function
SHOWN = 6  # functions kept in the record, the most time first
MIN_SHARE = 0.02  # of the run's wall time a function kept in the record holds at least (and each of its lines)
LINES = 3  # lines kept per function
NESTED = ("<listcomp>", "<genexpr>", "<setcomp>", "<dictcomp>", "<lambda>")  # frames whose line is their function's
LIBRARY = re.compile(r"[/\\](?:site|dist)-packages[/\\]")


@dataclass
class Round:
    """What one armed function got in one round of its calls: the rows (or the population), the outputs, where
    from."""

    kind: str = ""  # individual (rows, a list's or an array's) | population (one 2-D array) | "" not yet known
    sequence: str = ""  # list | tuple | array: what each individual was
    row_type: Optional[type] = None  # the ndarray subclass each individual was (DEAP's Individual), None for ndarray
    rows_of_one: bool = False  # each individual (an array) was a view, as a 2-D array's rows are: not one of its own
    rows: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    calls: int = 0
    bytes: int = 0
    sampled: bool = False
    site: Optional[tuple[str, int, str]] = None  # the program's line that made the calls (file, line, function)
    via: str = ""  # loop | map | apply_along_axis | vectorize | comprehension | call
    extra: Optional[tuple[Any, ...]] = None  # the other arguments, the first call's
    size: Optional[int] = None  # the round's calls, where the caller's iteration tells them (a comprehension's)

    def took(self, value: Any, kind: str, sequence: str) -> None:
        """A call's first argument, ``value``: what it is (``shape``'s kind and sequence), and for an individual that
        is an array, of which type and whether it is one of its own (its first call's)."""
        self.kind, self.sequence = kind, sequence
        if kind == "individual" and type(value) is not np.ndarray and isinstance(value, np.ndarray):
            self.row_type = type(value)  # (iterating a subclass can cost twice a plain array's: DEAP's)
        if kind == "individual" and sequence == "array" and self.calls == 1:  # a 2-D array's rows are views of it;
            self.rows_of_one = value.base is not None  # arrays of their own (a list's) are not


class Watch:
    """One armed function: its rounds of calls, the first skipped, the second copied."""

    def __init__(self, code: Any, by_caller: dict[Any, Watch], on_done: Callable[[], None],
                 alone: Callable[[Watch], bool]) -> None:
        self.code, self.by_caller, self.on_done, self.alone = code, by_caller, on_done, alone
        self.started = time.perf_counter()
        self.waiting = True  # armed, not yet seen running: no hook for it yet
        self.span: Optional[tuple[int, int]] = None  # the caller's lines that make one round (its other calls there
        #                                               are between the round's calls, not its end)
        self.caller: Any = None  # the frame making this round's calls
        self.home: Any = None  # the frame that stays between rounds (the caller, a comprehension's function)
        self.line = 0  # its line at the round's first call
        self.rounds_seen = 0
        self.rounds_hooked = 0  # rounds whose first call the hook saw (begun while the sampler was off: not sampled)
        self.open = True  # a round counted (by the sampler, or here) is in progress (its end not seen)
        self.joined = True  # the round in progress may have begun before the hook was on (not copied as whole)
        self.woke = False  # the hook came back before the round began: a round from another frame may have begun
        self.rests = 0  # times the hook was let go between two rounds
        self.rested = self.quiet = 0.0  # CPU time the rest began; the last sample the next round had not begun
        self.due: Optional[float] = None  # CPU time the hook comes back before the next round (where a gap is known)
        self.current = Round()
        self.kept: Optional[Round] = None
        self.why, self.shape = "", "unknown"  # why nothing was kept; what the function then is
        self.done = False
        self.single = True  # every round so far was one call
        self.pending: dict[int, Any] = {}  # a call's frame id -> its copied argument (checked at its return)

    def call(self, frame: Any) -> Optional[Callable[..., Any]]:
        """A call of the function: a new round where its caller frame changed; its argument copied in the kept
        round; a tracer for its return."""
        caller = frame.f_back
        if caller is not self.caller:
            self.boundary()
            if self.done:
                return None
            self.caller = caller
            self.joined = self.joined or self.woke
            self.home = caller.f_back if caller is not None and caller.f_code.co_name in (
                "<listcomp>", "<genexpr>") else caller
            if caller is not None:
                caller.f_trace, caller.f_trace_lines = self.caller_event, False
                _, via = site(caller)
                if via not in ("apply_along_axis", "vectorize"):  # NumPy's loop makes calls of its own between
                    self.by_caller[caller] = self
        if self.done:
            return None
        current = self.current
        current.calls += 1
        if current.calls == 1:
            self.rounds_hooked += not self.joined or self.woke  # begun while the hook was on (else sampled)
            self.open = True
            current.size = round_size(caller)
            self.line = self.home.f_lineno if self.home is not None else 0
            self.span = round_span(caller.f_code.co_filename, self.line) if caller is not None else None
        whole = not self.joined or current.size is not None  # a round known whole: copy from now on
        if current.calls > 1 and (not whole or current.bytes > MAX_BYTES or len(current.rows) >= MAX_ROWS):
            current.sampled = current.sampled or whole  # counted, not copied: the round goes on
            if current.size is not None and whole:  # its size known: no need to count the rest
                current.calls = current.size
                self.keep()
            return None
        names = self.code.co_varnames[:self.code.co_argcount]
        if not names:
            self.stop("it takes no argument")
            return None
        value = frame.f_locals.get(names[0])
        kind, sequence = shape(value)
        if not kind:
            self.stop(f"its first argument ({names[0]}) is {_a(value)}, not an individual or a population")
            return None
        if current.kind and kind != current.kind:
            self.stop(f"its first argument ({names[0]}) is an individual in some calls, a population in others")
            return None
        current.took(value, kind, sequence)
        if current.calls == 1:
            current.site, current.via = site(caller)
            current.extra = tuple(frame.f_locals.get(n) for n in names[1:])
        if not whole and kind != "population":
            return None
        copied = np.array(value, copy=True) if sequence == "array" or kind == "population" else tuple(value)
        current.bytes += _nbytes(copied)
        self.pending[id(frame)] = (value, copied)
        frame.f_trace_lines = False  # its return, not its lines
        return self.returned

    def within(self, line: int) -> bool:
        """Whether the caller's call at ``line`` is made inside the loop that makes the round's calls."""
        return self.span is not None and self.span[0] <= line <= self.span[1]

    def in_round(self) -> bool:
        """Whether the frame that makes the rounds is at the line that made the last one's calls or inside its loop,
        or may be: between two lines (3.11: at a loop's jump back), where a round the hook then sees may have begun
        (so that it is not copied as whole)."""
        if self.home is None:
            return False
        line = self.home.f_lineno
        return line is None or line == self.line or (self.home is self.caller and self.within(line))

    @without_dynamo
    def ended(self, now: float) -> None:
        """The round's caller made a call outside the round's loop, or returned: the round's end. Where the next
        round will come from the same frame (or a comprehension, which says its size) and no other watch needs the
        hook (it slows every call of the program), the hook is let go until REST_SHARE of the last gap between two
        rounds has passed, the first time until the sampler sees the next round begun (joined mid-way: the gap
        measured)."""
        calls, gap = self.current.calls, self.quiet - self.rested
        self.boundary()
        if self.done or calls < 2 or self.home is None or self.rests >= RESTS or (self.rests and gap < 2 * SAMPLE_S) \
                or not self.alone(self):
            return
        self.due = now + REST_SHARE * gap if self.rests else None
        self.rests += 1
        self.rested = self.quiet = now
        self.waiting = True
        self.on_done()

    def wake(self, now: float, running: bool, hooked: bool = False) -> bool:
        """A sample while resting: whether the hook is due again (the round begun: joined mid-way; or the hook goes
        on for another watch)."""
        if running or hooked or (self.due is not None and now >= self.due):
            self.joined, self.woke, self.open = running, not running, running
            return True
        self.quiet = now
        return False

    @without_dynamo
    def returned(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "return":
            return self.returned
        value, copied = self.pending.pop(id(frame), (None, None))
        if copied is None or self.done:
            return None
        if not _same(value, copied):
            self.stop("it changes its argument (calling it again on a copy would not repeat the program's call)")
            return None
        got = output(arg)
        if self.current.kind == "population":
            if np.ndim(got) != 1 or len(got) != len(copied):
                self.stop("it takes the population whole but gives no one value per individual (it returns "
                          f"{_a(arg)})")
                return None
            self.current.rows.append(copied)
            self.current.outputs.append(got)
            self.open = False  # its round, one call, has ended
            self.keep()
            return None
        self.current.rows.append(copied)
        self.current.outputs.append(got)
        return None

    @without_dynamo
    def caller_event(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "return" and frame is self.caller:
            self.home = None if self.home is frame else self.home
            self.ended(time.process_time())
            self.by_caller.pop(frame, None)
            self.caller = None
        return None

    def boundary(self) -> None:
        """The round in progress has ended: the first is skipped, the next kept."""
        if self.done or not self.current.calls:
            return
        self.open = False
        wanted = min(self.current.size or 0, MAX_ROWS) - 1  # a round seen from its middle: the next, whole
        if (not self.joined or self.current.size is not None) and len(self.current.rows) > max(1, wanted):
            self.current.calls = self.current.size or self.current.calls  # a round seen from its middle: all of it
            self.current.sampled = self.current.sampled or len(self.current.rows) < self.current.calls
            self.keep()
            return
        self.single = self.single and self.current.calls == 1
        self.rounds_seen += 1
        self.joined = self.woke = False  # the hook still on: the next round is seen from its first call
        self.current = Round()
        if self.single and self.rounds_seen >= SINGLE_ROUNDS:
            self.end()

    def keep(self) -> None:
        self.kept, self.done = self.current, True
        self.release()

    def stop(self, why: str, shape: str = "neither") -> None:
        self.why, self.done, self.shape = why, True, shape
        self.release()
        return None

    def release(self) -> None:
        if self.caller is not None:
            self.caller.f_trace = None
            self.by_caller.pop(self.caller, None)
        self.caller = None
        self.pending.clear()
        self.on_done()

    def end(self) -> None:
        """The program has ended: a round in progress is kept if it is the first seen (said as partial)."""
        if self.done:
            return
        if len(self.current.rows) > 1:
            self.current.sampled = self.current.sampled or self.joined
            self.keep()
        elif self.rounds_seen and self.single:
            self.stop("it takes one individual at a time, but from a loop that makes other calls between its "
                      "calls (no round of calls to rebuild a population from)")
        else:
            self.stop("it was not called again while inspector watched it" if not self.rounds_seen
                      and not self.current.calls else "no round of its calls was whole while inspector watched it",
                      "unknown")


class Hotspots:
    """The run's sampled profile (``install`` … ``stop``) and the armed functions' rounds."""

    def __init__(self, roots: list[str], skip: Callable[[Any], bool] = lambda code: False) -> None:
        self.roots = tuple(os.path.join(os.path.abspath(r), "") for r in roots)
        self.skip = skip  # code objects not the program's own to time (torch.compile's tracked functions)
        self.samples = 0
        self.ticks = 0  # the time the samples stood for, in SAMPLE_S (``_ticks``): what the counts below count
        self.last_tick: Optional[tuple[float, float]] = None  # (CPU, wall) seconds as the last handler returned
        self.taking = False  # the handler is running (a signal may come in it: Python runs handlers between bytecodes)
        self.counts: dict[Any, int] = {}  # ticks with the code on the stack
        self.sites: dict[Any, dict[tuple[str, int, str], int]] = {}  # ticks per line of the program calling it
        self.direct: dict[Any, set[tuple[str, int, str]]] = {}  # those of its sites no library's frame stood between
        self.direct_of: dict[tuple[str, int, str], set[Any]] = {}  # ... and the functions each such line calls
        self.running: set[Any] = set()  # the functions and lines running at the last sample (``_rounds``)
        self.bursts: dict[Any, int] = {}  # rounds of calls in which a sample fell, per function (and per line)
        self.last_ran: dict[Any, int] = {}  # the last sample that found a function (a line) running
        self.gaps: dict[Any, dict[int, int]] = {}  # samples between its rounds: {samples: times}
        self.watches: dict[Any, Watch] = {}
        self.deadline = 0.0  # when the watches end, whatever they have
        self.lines: dict[tuple[str, int, str], int] = {}  # ticks per line of the program's own innermost function
        self.line_frames: dict[tuple[str, int, str], Any] = {}  # the frame a line was last sampled in
        self.retries: dict[Any, int] = {}  # times a function was armed and not called while watched
        self.tried: set[tuple[str, int, str]] = set()  # hot lines whose callees were looked for
        self.into: dict[tuple[str, int, str], dict[str, int]] = {}  # per line: ticks in each function not the
        #                                                             program's that it called (``module.qualname``)
        self.within: dict[tuple[str, int, str], dict[str, int]] = {}  # ... and in the innermost function there
        self.line_of: dict[Any, tuple[str, int, str]] = {}  # a function found at a hot line: that line
        self.last: dict[Any, Any] = {}  # the frame a code was last sampled in (kept alive: another is another call)
        self.repeated: set[Any] = set()  # codes sampled in two calls or more
        self.kinds: dict[Any, tuple[str, str]] = {}  # what a function's first argument was, and why it is neither
        self.by_caller: dict[Any, Watch] = {}  # the frames making the rounds of calls now watched
        self.user: dict[str, bool] = {}
        self.codes: dict[tuple[str, int, str], Any] = {}  # one code object per function (torch runs a compiled
        #                                                   function's frames as a code object of its own)
        self.problems: list[str] = []
        self.previous_handler: Any = None
        self.ours = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
        paths = sysconfig.get_paths()
        self.stdlib = tuple(os.path.join(paths[k], "") for k in ("stdlib", "platstdlib") if paths.get(k))
        self.cpu = 0.0
        self.hooked_s = 0.0  # wall time the call hook was on: it slows the calls it watches, and is not sampled
        self.hooked_at: Optional[float] = None

    def install(self) -> None:
        self.cpu = time.process_time()
        if threading.current_thread() is not threading.main_thread():
            self.problems.append("not run in the main thread, where Python takes its signals: where the time went was "
                                 "not sampled")
            return
        if signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, None):
            self.problems.append("SIGPROF was already handled: where the time went was not sampled")
            return
        self.previous_handler = signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, SAMPLE_S, SAMPLE_S)

    def stop(self) -> None:
        """The program has ended: the sampler and the call hook off."""
        self.cpu = time.process_time() - self.cpu
        if self.previous_handler is not None:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            if signal.getsignal(signal.SIGPROF) != self._sample:
                self.problems.append("the program handled SIGPROF itself: samples stop where it took it over")
            signal.signal(signal.SIGPROF, self.previous_handler)
            self.previous_handler = None
        self._unhook()
        for watch in self.watches.values():
            watch.end()
        self.last.clear()
        self.line_frames.clear()

    def own(self, code: Any) -> bool:
        """Whether ``code`` is the program's own (a file under its folders; not a library's, Python's or
        inspector's)."""
        name = code.co_filename
        if name not in self.user:  # a relative name (runpy.run_path("ga.py")): from the folder the program is in now;
            path = os.path.abspath(name)  # a compiled module's function names a source not there (_generator.pyx)
            self.user[name] = (not name.startswith("<") and path.startswith(self.roots) and os.path.isfile(path)
                               and not path.startswith(self.ours) and not LIBRARY.search(path)
                               and not (path.startswith(self.stdlib) and not any(
                                   r.startswith(self.stdlib) for r in self.roots)))
        # torch's resume function (the code after a graph break) runs inside its function's frame: the function's
        return self.user[name] and not self.skip(code) and not code.co_name.startswith(RESUMED)

    @without_dynamo
    def _sample(self, signum: int, frame: Any) -> None:
        """One sample of the stack (a signal handler: whatever goes wrong in it is inspector's, never the
        program's: the sampler stops, and the record says why). A signal that comes while the handler runs takes no
        sample: taken, its counts would be written over by the handler it interrupted (a function's samples then
        fewer than its lines'), and the time it stands for is the next sample's."""
        if self.taking:
            return
        self.taking = True
        try:
            self._take(frame)
        except Exception as e:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            self.problems.append(f"inspector's sampler stopped ({type(e).__name__}: {e})")
        finally:
            self.taking = False
        self.last_tick = (time.process_time(), time.perf_counter())  # this handler's own time is not the program's

    def _ticks(self) -> int:
        """The time this sample stands for, in SAMPLE_S: since the last one's handler returned (the least of CPU and
        wall time: the timer's signals during a long call of C code, NumPy's arithmetic, are one, taken where Python
        next checks for them; another thread's CPU time is not this one's), at least one."""
        last = self.last_tick
        if last is None:
            return 1
        return max(1, round(min(time.process_time() - last[0], time.perf_counter() - last[1]) / SAMPLE_S))

    def _spent_in(self, frame: Any) -> Any:
        """The frame the time a sample stands for was spent in: the one it was taken in, or its caller where it was
        taken as a function not the program's began (the C code of a line: NumPy's arithmetic before np.sum's
        dispatcher, entered after it)."""
        if frame.f_back is not None and not self.own(frame.f_code) and frame.f_lasti <= _begins(frame.f_code):
            return frame.f_back
        return frame

    def _take(self, frame: Any) -> None:
        if sys.gettrace() == self._traced:  # a watch slows the calls it watches: their time is not the program's
            if time.perf_counter() > self.deadline:  # a watch's time is up: it ends with what it has
                self._expire()
            return
        self.samples += 1
        self.ticks += (ticks := self._ticks())
        seen: set[Any] = set()
        at: set[tuple[str, int, str]] = set()  # the program's lines on the stack
        waiting: Any = None  # the innermost function of the program's not yet given the line that called it
        through = False  # a frame not the program's (a library's) lies between ``waiting`` and this one
        inside: Any = None  # the outermost frame not the program's inside the innermost of the program's (None
        #                     within a call of a compiled function: inspector's wrapper is on the stack)
        frame = self._spent_in(frame)
        compiled, innermost = False, frame
        while frame is not None:
            code = frame.f_code
            if not self.own(code):
                through = True
                if waiting is None:
                    compiled = compiled or code.co_filename.startswith(self.ours)
                    inside = None if compiled else frame
            else:
                code = self.codes.setdefault((code.co_filename, code.co_firstlineno, code.co_name), code)
                if code not in seen:
                    seen.add(code)
                    self.counts[code] = self.counts.get(code, 0) + ticks
                    self._look(code, frame)
                if code.co_name not in NESTED and frame.f_lineno is not None:  # a comprehension's line is its
                    #                   function's; a frame between two lines (3.11: f_lineno None) has none
                    key = (code.co_filename, frame.f_lineno, code.co_name)
                    at.add(key)
                    if waiting is None:  # the innermost: the line the time is at
                        self.lines[key] = self.lines.get(key, 0) + ticks
                        self.line_frames[key] = frame
                        if inside is not None:  # in a library's (or Python's) function that line called (a
                            #                     compiled function's call is said where its function is)
                            for found, name in ((self.into, _entry(inside)), (self.within, _entry(innermost))):
                                at_line = found.setdefault(key, {})
                                at_line[name] = at_line.get(name, 0) + ticks
                    if waiting is not None and waiting is not code:
                        where = self.sites.setdefault(waiting, {})
                        where[key] = where.get(key, 0) + ticks
                        if not through:
                            self.direct.setdefault(waiting, set()).add(key)
                            if waiting not in self.direct_of.get(key, ()):
                                self._calls(key, waiting)
                    waiting, through = code, False
            frame = frame.f_back
        self._rounds(seen.union(at, *(self.direct_of[k] for k in at if k in self.direct_of)))
        if self.samples >= ARM_AFTER and self.samples % 10 == 0 and len(self.watches) < MAX_ARMED:
            self._arm()
        def running(w: Watch) -> bool:
            return w.code in seen or self.line_of.get(w.code) in at or w.in_round()
        now = time.process_time()
        ready = [w for w in self.watches.values() if w.waiting and (w.wake(now, running(w)) if w.rests else running(w))]
        if ready:  # running now, or its line is, or its next round is due: the hook goes on (its first calls come
            #        within microseconds), for the resting watches too
            self._hook(ready + [w for w in self.watches.values() if w.waiting and w.rests and w not in ready
                                and w.wake(now, running(w), hooked=True)])

    def _rounds(self, now: set[Any]) -> None:
        """Count a round of calls for each function now running (on the stack, or a line on it that calls it with
        no library between, or that it was armed at: a comprehension's), and for each line on the stack, that the
        previous sample did not find running (a round is seen where a sample falls in it), with the samples that
        fell between it and the round before (two rounds closer than a sample are one)."""
        for code in now - self.running:
            self.bursts[code] = self.bursts.get(code, 0) + 1
            if code in self.last_ran:
                gaps, gap = self.gaps.setdefault(code, {}), self.samples - self.last_ran[code] - 1
                gaps[gap] = gaps.get(gap, 0) + 1
        for code in now:
            self.last_ran[code] = self.samples
        self.running = now

    def _calls(self, line: tuple[str, int, str], code: Any) -> None:
        """``line`` calls ``code`` (found so, or armed there): running while it is. The line's rounds so far are the
        function's where more (a function too short to be sampled was not found running before)."""
        self.direct_of.setdefault(line, set()).add(code)
        if self.bursts.get(line, 0) > self.bursts.get(code, 0):
            self.bursts[code], self.gaps[code] = self.bursts[line], dict(self.gaps.get(line, {}))
            if line in self.last_ran:
                self.last_ran[code] = self.last_ran[line]
            if line in self.running:
                self.running.add(code)

    def _look(self, code: Any, frame: Any) -> None:
        """What a sampled call of ``code`` tells: another call seen, and what its first argument is (once)."""
        last = self.last.get(code)
        if last is not None and last is not frame:  # kept alive, so another frame is another call
            self.repeated.add(code)
        self.last[code] = frame
        if code not in self.kinds and not code.co_name.startswith("<"):
            self.kinds[code] = kind_of(code, frame)

    def _arm(self) -> None:
        """Watch the functions that a line holding ARM_SHARE of the samples calls by name (a loop's or a
        comprehension's line calling a function too short to be sampled itself; ``map``'s, ``np.apply_along_axis``'s
        function: ``callees``), and those that hold that share and take an individual or a population (the hottest
        one half that, while none is watched)."""
        share = ARM_SHARE * self.ticks
        hot = []
        for key in [k for k, n in self.lines.items() if n >= share and k not in self.tried]:
            self.tried.add(key)
            for code in callees(key, self.line_frames[key], self.own):
                if code not in self.watches and code not in hot:
                    self.line_of.setdefault(code, key)
                    self._calls(key, code)
                    hot.append(code)
        candidates = sorted((c for c in self.counts if c not in self.watches and c not in hot and c in self.repeated
                             and self.kinds.get(c, ("",))[0]), key=lambda c: -self.counts[c])
        for i, code in enumerate(candidates):
            if self.counts[code] >= (share / 2 if i == 0 and not (self.watches or hot) else share):
                hot.append(code)
                direct = {k: n for k, n in self.sites.get(code, {}).items() if k in self.direct.get(code, ())}
                if direct:  # the line its own caller calls it from (a comprehension's): it wakes the watch too
                    self.line_of.setdefault(code, max(direct, key=direct.__getitem__))
                    self._calls(self.line_of[code], code)
        hot = sorted(hot, key=lambda c: -self.counts.get(c, 0))[:MAX_ARMED - len(self.watches)]
        if not hot:
            return
        for code in hot:
            self.watches[code] = Watch(code, self.by_caller, self._close, self._alone)

    def _alone(self, watch: Watch) -> bool:
        """Whether no watch but ``watch`` needs the hook now."""
        return all(w is watch or w.done or w.waiting for w in self.watches.values())

    def _hook(self, ready: list[Watch]) -> None:
        """Start watching ``ready`` (each waited for the sampler to see it, or its line, running)."""
        if sys.gettrace() not in (None, self._traced):
            for watch in ready:
                watch.stop("another tracer (a debugger, coverage) was set: its inputs were not copied", "unknown")
            return
        now = time.perf_counter()
        for watch in ready:
            watch.waiting, watch.started = False, now
        self.deadline = min(self.deadline, now + IDLE_S) if sys.gettrace() == self._traced else now + IDLE_S
        if self.hooked_at is None:
            self.hooked_at = now
        sys.settrace(self._traced)

    def _traced(self, frame: Any, event: str, arg: Any) -> Any:
        """The call hook (every call of the program while it is on: the common case, neither a watched function's
        call nor one from a round's caller frame, is two dictionary look-ups). Whatever goes wrong in it is
        inspector's, never the program's: the hook is let go, its watches stop, and the record says why."""
        try:
            watch = self.watches.get(frame.f_code)
            if watch is None:
                watch = self.by_caller.get(frame.f_back)
                if watch is not None:
                    self._other(frame, watch)
                return None
            if watch.done or watch.waiting:
                return None
            return self._called(watch, frame)
        except Exception as e:
            failed = f"inspector's call hook stopped ({type(e).__name__}: {e})"
            for watch in self.watches.values():
                if not watch.done:
                    watch.stop(f"{failed}: its inputs were not copied", "unknown")
            self._unhook()
            self.problems.append(failed)
            return None

    @without_dynamo
    def _called(self, watch: Watch, frame: Any) -> Any:
        """A watched function's call: its argument copied (torch's frame hook off: it may be a compiled call's)."""
        found = watch.call(frame)
        if watch.done:
            self._close()
        return found

    def _other(self, frame: Any, watch: Watch) -> None:
        """A call from a round's caller frame: outside the round's loop, the round's end (and the hook let go
        until the next, where it can be)."""
        back = frame.f_back
        line = back.f_lineno  # None between two lines (3.11: a loop's jump back, where a signal's handler is called)
        if watch.caller is not back or watch.done or frame.f_code.co_filename.startswith(self.ours) or \
                line is None or watch.within(line):
            return
        watch.ended(time.process_time())

    def _expire(self) -> None:
        """End the watches whose time is up (IDLE_S for one not called since it was armed, else WINDOW_S)."""
        now, left = time.perf_counter(), []
        for code, watch in self.watches.items():
            if not watch.done and not watch.waiting:
                called = watch.current.calls or watch.rounds_seen
                ends = watch.started + (WINDOW_S if called else IDLE_S)
                if now > ends and not called and self.retries.get(code, 0) < RETRIES:  # waits to be seen again
                    self.retries[code] = self.retries.get(code, 0) + 1
                    watch.waiting = True
                elif now > ends:
                    watch.end()
                else:
                    left.append(ends)
        self.deadline = min(left, default=now)
        self._close()

    def _close(self) -> None:
        if all(w.done or w.waiting for w in self.watches.values()):
            self._unhook()

    def _unhook(self) -> None:
        """The call hook off, its time counted. A watched function's round the hook counted and saw no end of is
        running still (the sampler does not count it again); else the next sample finding it running is a round
        begun after (none were sampled while the hook was on: no gap measured across)."""
        if sys.gettrace() == self._traced:
            sys.settrace(None)
        if self.hooked_at is not None:
            self.hooked_s += time.perf_counter() - self.hooked_at
            self.hooked_at = None
            self.last_tick = (time.process_time(), time.perf_counter())  # the hook's time is not the program's
            for code, watch in self.watches.items():
                (self.running.add if watch.open else self.running.discard)(code)
                self.last_ran.pop(code, None)

    def facts(self, wall_s: float) -> list[dict[str, Any]]:
        """The record's ``program.hotspots``: the program's own functions in which most samples fell, each with its
        share of the samples (its time: that share of the run's wall time less the time the call hook was on, which
        was not sampled and slowed what it watched), the lines that called it, and what an armed one was given
        (``experiment`` reads ``rounds``)."""
        if not self.samples:
            return []
        samples = {c: n for c, n in self.counts.items() if self._told(c)}
        for code, line in self.line_of.items():  # a function found at a hot line: that line's own samples are its
            samples[code] = samples.get(code, 0) + self.lines.get(line, 0)
            self.sites.setdefault(code, {}).setdefault(line, self.lines.get(line, 0))
        found = []
        for code in sorted(samples, key=lambda c: -samples[c])[:SHOWN]:
            share = samples[code] / self.ticks
            if share < MIN_SHARE:
                break
            sites = sorted(self.sites.get(code, {}).items(), key=lambda x: -x[1])[:3]
            found.append({"id": _name(code), "function": code.co_name, "file": code.co_filename,
                          "line": code.co_firstlineno, "samples": samples[code], "share": share,
                          "total_s": share * max(0.0, wall_s - self.hooked_s),
                          "callers": [{"file": f, "line": n, "function": name, "calls": None, "samples": k}
                                      for (f, n, name), k in sites],
                          "lines": self._lines(code), "rounds_sampled": self.bursts.get(code),
                          "rounds_watched": self.watches[code].rounds_hooked if code in self.watches else None,
                          "round_gap_samples": _median(self.gaps[code]) if self.gaps.get(code) else None,
                          **self._shape(code)})
        return found

    def _told(self, code: Any) -> bool:
        """Whether ``code`` is told as a function of the program's: not a comprehension (its time is its function's),
        and a module's top level only where its own lines held time (its imports, a library's loop run from there)."""
        if code.co_name == "<module>":
            own = sum(n for (file, _, name), n in self.lines.items() if (file, name) == (code.co_filename, "<module>"))
            return own >= MIN_SHARE * self.ticks
        return not code.co_name.startswith("<")

    def _lines(self, code: Any) -> list[dict[str, Any]]:
        """The lines of ``code`` the most samples fell at (at most LINES, each over MIN_SHARE), each with the
        function not the program's it called that held the most of them (a library's, Python's), and the innermost
        function the most of them were in (its own time)."""
        own = sorted(((k, n) for k, n in self.lines.items() if k[0] == code.co_filename and k[2] == code.co_name
                      and n >= MIN_SHARE * self.ticks), key=lambda x: -x[1])[:LINES]
        found = []
        for key, n in own:
            into, within = (max(d.get(key, {}).items(), key=lambda x: x[1], default=(None, None))
                            for d in (self.into, self.within))
            found.append({"line": key[1], "samples": n, "into": into[0], "into_samples": into[1],
                          "within": within[0], "within_samples": within[1]})
        return found

    def rounds(self) -> dict[str, tuple[Any, Round]]:
        """{function id: (its code, the round kept)} of the armed functions whose inputs were copied."""
        return {_name(w.code): (w.code, w.kept) for w in self.watches.values() if w.kept is not None}


    def _shape(self, code: Any) -> dict[str, Any]:
        """What a function is (its record's ``shape``, ``why``, ``captured``): from its watch where it was armed,
        else from its samples."""
        if code in self.watches:
            return _watched(self.watches[code])
        if not code.co_argcount:
            return {"shape": "neither", "why": "it takes no argument"}
        kind, why = self.kinds.get(code, ("", ""))
        if why:
            return {"shape": "neither", "why": why}
        if code not in self.repeated:
            return {"shape": "once", "why": "one call of it held all its samples"}
        return {"shape": "unknown", "why": f"inspector did not watch its inputs (it did not hold {ARM_SHARE:.0%} of "
                                           "the run's samples early on)"}


def _watched(watch: Watch) -> dict[str, Any]:
    """What an armed function's watch found: its kind, the round kept (or why none)."""
    kept = watch.kept
    if kept is None:
        return {"shape": watch.shape, "why": watch.why}
    rows = len(kept.rows) if kept.kind == "individual" else (len(kept.rows[0]) if kept.rows else 0)
    first = kept.rows[0] if kept.rows else ()
    genes = len(first) if kept.kind == "individual" else (np.shape(first)[1] if np.ndim(first) == 2 else None)
    return {"shape": kept.kind, "captured": {
        "rows": rows, "genes": genes, "calls": kept.calls, "bytes": kept.bytes, "sampled": kept.sampled,
        "sequence": kept.sequence, "via": kept.via, "dtype": str(_dtype(kept)),
        "site": {"file": kept.site[0], "line": kept.site[1], "function": kept.site[2]} if kept.site else None}}


def _median(counts: dict[int, int]) -> float:
    """The median of the values counted in ``counts`` ({value: times})."""
    n, seen, low = sum(counts.values()), 0, -1
    for value, times in sorted(counts.items()):
        seen += times
        if low < 0 and seen > (n - 1) // 2:
            low = value
        if seen > n // 2:
            return (low + value) / 2
    raise ValueError("no values")


def _entry(frame: Any) -> str:
    """A function not the program's, as its module names it (``deap.tools.emo.selNSGA2``)."""
    code = frame.f_code
    return f"{frame.f_globals.get('__name__', '?')}.{getattr(code, 'co_qualname', code.co_name)}"


def _name(code: Any) -> str:
    return f"{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name} " \
           f"({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


def callees(key: tuple[str, int, str], frame: Any, own: Callable[[Any], bool]) -> list[Any]:
    """The code objects of the program's own functions the statement at ``key`` names (called, or handed to
    ``map``, ``np.apply_along_axis``, ...), looked up in ``frame``'s namespace without running anything (names, and
    attributes read with ``inspect.getattr_static``; a ``functools.partial``'s function)."""
    import ast
    import functools
    import inspect
    file, line, _ = key
    try:
        tree = ast.parse(source.text(file) or "")
    except (SyntaxError, ValueError):
        return []
    statement = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno <= line <= (
        n.end_lineno or n.lineno) and not isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.For, ast.While,
                                                         ast.If, ast.With, ast.Try, ast.AsyncFunctionDef))), None)
    if statement is None:
        return []
    space = {**frame.f_globals, **frame.f_locals}
    found = []
    for node in ast.walk(statement):
        value = _static(node, space, inspect.getattr_static)
        while isinstance(value, functools.partial):
            value = value.func
        code = getattr(value, "__code__", None)
        if code is not None and own(code) and not code.co_name.startswith("<") and code not in found:
            found.append(code)
    return found


def _static(node: Any, space: dict[str, Any], getattr_static: Callable[[Any, str], Any]) -> Any:
    """The value a name or an attribute chain names, read without running the program's code (None where it
    cannot be)."""
    import ast
    if isinstance(node, ast.Name):
        return space.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _static(node.value, space, getattr_static)
        if owner is None:
            return None
        try:
            return getattr_static(owner, node.attr)
        except AttributeError:
            return None
    return None


def kind_of(code: Any, frame: Any) -> tuple[str, str]:
    """(individual | population | "", why it is neither) from a call's frame: its first argument."""
    if not code.co_argcount:
        return "", "it takes no argument"
    name = code.co_varnames[0]
    if name in ("self", "cls"):
        return "", "a method (inspector rebuilds the inputs of functions, not of objects' methods)"
    value = frame.f_locals.get(name)
    kind, _ = shape(value)
    return kind, "" if kind else f"its first argument ({name}) is {_a(value)}, not an individual or a population"


def shape(value: Any) -> tuple[str, str]:
    """(individual | population | "", list | tuple | array | ""): what an argument is."""
    if isinstance(value, np.ndarray):
        if value.ndim == 1 and value.dtype.kind in "biuf":
            return "individual", "array"
        if value.ndim == 2 and value.dtype.kind in "biuf":
            return "population", "array"
        return "", ""
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(x, (numbers.Real, np.number)) and not isinstance(x, (str, bytes)) for x in value[:8]):
        return "individual", "tuple" if isinstance(value, tuple) else "list"
    return "", ""


def output(value: Any) -> Any:
    """A call's result as kept: numbers and tuples of numbers as they are, arrays copied, anything else its type."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (numbers.Real, np.number)) or (
            isinstance(value, (tuple, list)) and all(isinstance(x, (numbers.Real, np.number)) for x in value)):
        return value
    detach = getattr(value, "detach", None)
    if detach is not None:
        return detach().cpu().numpy().copy()
    return f"<{type(value).__name__}>"


@functools.lru_cache(maxsize=256)
def round_span(file: str, line: int) -> Optional[tuple[int, int]]:
    """The lines of the loop that makes a round's calls at ``line`` of ``file``: a ``for`` whose header makes them
    (a lazy ``map`` it iterates) or whose body holds the call; None where the statement makes them all by itself
    (``map`` in ``list``, ``np.apply_along_axis``, a comprehension: another call of its frame ends the round)."""
    import ast
    try:
        tree = ast.parse(source.text(file) or "")
    except (SyntaxError, ValueError):
        return None
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.lineno <= line <= (
        n.end_lineno or n.lineno)]
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(n, (
        ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)) and n.lineno <= line <= (
        n.end_lineno or n.lineno)]
    by_itself = any(isinstance(x, (ast.ListComp, ast.GeneratorExp)) or (isinstance(x, ast.Call) and isinstance(
        x.func, (ast.Name, ast.Attribute)) and (getattr(x.func, "id", None) or getattr(x.func, "attr", None)) in (
        "map", "apply_along_axis", "vectorize")) for st in statements for x in ast.walk(st))
    header = next((n for n in loops if n.lineno == line), None)
    if header is not None:
        return header.lineno, header.end_lineno or header.lineno
    if by_itself or not loops:
        return None
    inner = max(loops, key=lambda n: n.lineno)
    return inner.lineno, inner.end_lineno or inner.lineno


def round_size(caller: Any) -> Optional[int]:
    """The calls a comprehension's round makes (the length of what it iterates over; a list's or a range's
    iterator says it), or None where the caller's iteration does not tell."""
    if caller is None or caller.f_code.co_name not in ("<listcomp>", "<genexpr>"):
        return None
    iterator = caller.f_locals.get(".0")
    try:
        reduced = iterator.__reduce__()
        return len(reduced[1][0]) if type(iterator).__name__ in ("list_iterator", "range_iterator",
                                                                  "tuple_iterator") else None
    except Exception:
        return None


@functools.lru_cache(maxsize=None)
def _begins(code: Any) -> int:
    """The offset of the instruction at which a call of ``code`` begins and Python takes signals (3.11 on:
    ``RESUME``), else -1."""
    import dis
    return next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), -1)


def site(caller: Any) -> tuple[Optional[tuple[str, int, str]], str]:
    """The program's line that made the calls (outside comprehensions and NumPy's own frames), and how."""
    via, frame = "loop", caller
    while frame is not None:
        code = frame.f_code
        name = code.co_name
        if name in ("apply_along_axis", "_vectorize_call", "__call__", "_call_as_normal") and "numpy" in \
                code.co_filename:
            via = "apply_along_axis" if name == "apply_along_axis" else "vectorize"
        elif name in ("<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"):
            via = "comprehension"
        elif not LIBRARY.search(code.co_filename) and not code.co_filename.startswith("<"):
            return (code.co_filename, frame.f_lineno, code.co_name), via
        frame = frame.f_back
    return None, via


def _same(value: Any, copied: Any) -> bool:
    """Whether the call left its argument as it was copied."""
    try:
        if isinstance(copied, np.ndarray):
            return bool(np.array_equal(np.asarray(value), copied, equal_nan=copied.dtype.kind == "f"))
        return tuple(value) == copied or all(a == b or (a != a and b != b) for a, b in zip(value, copied))
    except Exception:
        return False


def _nbytes(value: Any) -> int:
    return value.nbytes if isinstance(value, np.ndarray) else 8 * len(value) + 56


def _dtype(kept: Round) -> Any:
    try:
        return population(kept).dtype
    except (ValueError, TypeError):
        return "ragged"


def population(kept: Round) -> np.ndarray:
    """The kept round's inputs as one array: the individuals as rows (a list of floats: float64; of ints: int64;
    arrays keep their dtype), or the population the function got; ValueError where the rows differ in length."""
    if kept.kind == "population":
        return np.asarray(kept.rows[0])
    lengths = {len(r) for r in kept.rows}
    if len(lengths) != 1:
        raise ValueError(f"individuals of {len(lengths)} different lengths")
    return np.asarray(kept.rows)


def _a(value: Any) -> str:
    """What a value is, with its article: "a 2-D float64 array", "an int"."""
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-D {value.dtype} array"
    kind = type(value).__name__
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
