"""Rewrites inspector writes for the user: a per-individual function over the whole population (NumPy, torch), and
the mechanical rewrites of graph breaks; each checked against the original before it is advice."""
