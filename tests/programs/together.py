"""Issue 30's small programs run in one process, so that one `inspector run` (one start of torch, one first compile)
checks them all: each program is imported in turn and runs as it does alone; its functions keep their own files and
names. recompile_limit_hit comes last: it lowers torch's recompile limit for the whole process.

    python tests/programs/together.py
"""

import compiled_per_call  # noqa: F401
import data_dependent_if  # noqa: F401
import data_dependent_ops  # noqa: F401
import library_callee  # noqa: F401
import method_on_self  # noqa: F401
import module_method  # noqa: F401
import nested_recompile  # noqa: F401
import recompile_on_float  # noqa: F401
import sampled_helper  # noqa: F401
import skipped_loop  # noqa: F401
import recompile_limit_hit  # noqa: F401  (last: it sets torch._dynamo.config.recompile_limit)
