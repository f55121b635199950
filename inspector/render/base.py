"""The interface every output format implements: typed values in (``inspector.model``), a string out."""

from __future__ import annotations

from typing import Union

from inspector.model import BreaksView, Comparison, ProgramAnalysis, SampleAnalysis


class Renderer:
    """One output format. Each method renders one kind of document; a format without that view says so."""

    name = ""

    def render(self, analysis: Union[SampleAnalysis, ProgramAnalysis]) -> str:
        """A run's report, by its kind: a program's (``program``) or a sample's (``report``)."""
        return self.program(analysis) if isinstance(analysis, ProgramAnalysis) else self.report(analysis)

    def report(self, analysis: SampleAnalysis) -> str:
        """One run: timings, kernels, line verdicts, breaks, costs."""
        raise NotImplementedError(f"the {self.name} renderer has no report view")

    def breaks(self, view: BreaksView) -> str:
        """The ``inspector breaks`` findings (a BreaksView)."""
        raise NotImplementedError(f"the {self.name} renderer has no breaks view")

    def program(self, analysis: ProgramAnalysis) -> str:
        """A program's run (``inspector run``): its compiled functions over the run."""
        raise NotImplementedError(f"the {self.name} renderer has no program view")

    def comparison(self, comparison: Comparison) -> str:
        """A comparison of runs (``inspector.analysis.compare.compare``)."""
        raise NotImplementedError(f"the {self.name} renderer has no comparison view")

