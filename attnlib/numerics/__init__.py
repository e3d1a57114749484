"""Layer 0, numerics: argument checks (:mod:`~attnlib.numerics.checks`) and the numerical conventions every
spectrum shares (:mod:`~attnlib.numerics.linalg`: eigen-solvers, the zero rule, BLAS threads). Imports nothing
else from attnlib."""

from attnlib.numerics import checks, linalg

__all__ = ["checks", "linalg"]
