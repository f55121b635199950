"""The interface every output format implements: typed values in (``inspector.model``), a string out."""


class Renderer:
    """One output format. Each method renders one kind of document; a format without that view says so."""

    name = ""

    def report(self, analysis):
        """One run: timings, kernels, line verdicts, breaks, costs."""
        raise NotImplementedError(f"the {self.name} renderer has no report view")

    def breaks(self, view):
        """The ``inspector breaks`` findings (a BreaksView)."""
        raise NotImplementedError(f"the {self.name} renderer has no breaks view")

    def program(self, analysis):
        """A program's run (``inspector run``): its compiled functions over the run."""
        raise NotImplementedError(f"the {self.name} renderer has no program view")

    def comparison(self, comparison):
        """A comparison of runs (``inspector.analysis.compare.compare``)."""
        raise NotImplementedError(f"the {self.name} renderer has no comparison view")

