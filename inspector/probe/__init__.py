"""The probe: runs inside the target interpreter; imports only the standard library, numpy and torch."""

import atexit
import contextlib
import gc
from collections.abc import Iterator


def skip_last_collection() -> None:
    """At this interpreter's exit, after every atexit handler registered later (call it first), freeze what the
    garbage collector tracks: its last collection, about 1 s once torch has compiled (Dynamo's and Inductor's
    objects), is skipped. Objects are still freed as the modules are cleared; only garbage in reference cycles is
    left to the operating system, whose finalizers Python does not promise to run at exit."""
    atexit.register(gc.freeze)



@contextlib.contextmanager
def ours_left_out_of_collections() -> Iterator[None]:
    """While the program (or a captured block) runs, what the garbage collector tracked before it (inspector's and
    torch's: about a million objects once torch is imported, none of them the program's) is frozen, not scanned by
    the full collections the program's own allocations trigger; after, it is tracked again. Scanned, a plain GA that
    makes new lists each generation ran about 1.7x its bare run's time, and its profile put that time at the lines
    that allocate (samples/programs/plain_ga.py's breed: 70 % of the run, 47 % bare). Where the program froze
    objects itself, as it is."""
    ours = not gc.get_freeze_count()
    if ours:
        gc.freeze()
    try:
        yield
    finally:
        if ours:
            gc.unfreeze()
