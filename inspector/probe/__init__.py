"""The probe: runs inside the target interpreter; imports only the standard library, numpy and torch."""

import atexit
import gc


def skip_last_collection() -> None:
    """At this interpreter's exit, after every atexit handler registered later (call it first), freeze what the
    garbage collector tracks: its last collection, about 1 s once torch has compiled (Dynamo's and Inductor's
    objects), is skipped. Objects are still freed as the modules are cleared; only garbage in reference cycles is
    left to the operating system, whose finalizers Python does not promise to run at exit."""
    atexit.register(gc.freeze)
