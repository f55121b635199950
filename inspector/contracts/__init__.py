"""``inspector check``: per-line and per-function performance contracts, judged on runs made here or read from
records, across torch versions, jobs and machines.

- ``grammar``: the words and where they are written (comments, ``[tool.inspector]`` in pyproject.toml);
  ``source``: statements found again by label or code when lines move; ``versions``: torch ranges;
- ``facts``: the one adapter from inspector's analysis model to check's own typed facts;
- ``judge``: contracts judged on the facts (holds, violated, unknown, inconclusive); ``lock``: inspector.lock and
  the baseline; ``result``: the verdicts as text, GitHub annotations, JUnit XML and JSON; ``command``: the command.
"""
