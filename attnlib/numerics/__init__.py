"""Layer 0, numerics: argument checks (:mod:`~attnlib.numerics.checks`) and the numerical conventions every
spectrum shares (:mod:`~attnlib.numerics.linalg`: eigen-solvers, the zero rule, BLAS threads), and the summaries
of repeated measurements (:mod:`~attnlib.numerics.statistics`: standard errors, slopes). Imports nothing else from
attnlib."""

from attnlib.numerics import checks, linalg, statistics

__all__ = ["checks", "linalg", "statistics"]
