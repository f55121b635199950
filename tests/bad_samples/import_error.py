"""A sample that raises while it is imported"""

raise RuntimeError("cannot find the data file")
