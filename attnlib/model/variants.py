"""Departures from the book's generative model, gathered in one object: :class:`ModelOptions`.

The book's model (:mod:`attnlib.model.generative`) has i.i.d. Gaussian, isotropic vocabulary noise and tokens uniform in
their class. ``ModelOptions`` changes any of the three, one place each: the law of the noise entries
(:mod:`attnlib.model.noise`), a noise covariance Sigma, and within-class token frequencies. Its defaults are the
book's model, and with them every function draws exactly what it draws without options. A
:class:`~attnlib.model.setting.Setting` carries one (``options=``), so that :func:`attnlib.simulate` and
:func:`attnlib.sweep` simulate the modified model; the theory of each departure is in
:mod:`attnlib.theory.population` (Sigma, frequencies) and :mod:`attnlib.model.frequencies` (Zipf frequencies).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.model.noise import NoiseLaw, covariance_root, gaussian

__all__ = ["ModelOptions"]


def check_frequencies(value, n: int | None = None) -> np.ndarray:
    """Within-class token frequencies: a finite non-negative vector summing to 1 (of length ``n`` if given)."""
    f = _v.finite_vector("frequencies", value)
    if n is not None and f.size != n:
        raise ValueError(f"frequencies must have one entry per token of a class ({n}), got length {f.size}")
    if np.any(f < 0):
        raise ValueError(f"frequencies must be >= 0, got min {f.min():.3g}")
    if abs(f.sum() - 1.0) > 1e-9:
        raise ValueError(f"frequencies must sum to 1 (they are probabilities), got sum {f.sum():.12g}")
    return f


@dataclass(frozen=True, eq=False)
class ModelOptions:
    """Departures from the book's generative model; the defaults are the book's model.

    Parameters
    ----------
    noise : attnlib.model.noise.NoiseLaw
        Law of the i.i.d. noise entries, mean 0 and variance 1 (default Gaussian).
    covariance : array_like, optional
        Noise covariance Sigma: d positive variances (diagonal) or a symmetric positive definite (d, d) matrix;
        the noise of token v is z_v = Sigma^{1/2} x_v. None: the identity.
    frequencies : array_like, optional
        Within-class token frequencies (one per token of a class, summing to 1), shared by the classes: in a
        class, its k-th token is drawn with probability ``frequencies[k]``. None: uniform.
    """

    noise: NoiseLaw = field(default_factory=gaussian)
    covariance: np.ndarray | None = field(default=None, repr=False)
    frequencies: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if not isinstance(self.noise, NoiseLaw):
            raise ValueError(f"noise must be an attnlib.model.noise.NoiseLaw (noise.student(5), ...), got {self.noise!r}")
        root = None if self.covariance is None else covariance_root(self.covariance)
        object.__setattr__(self, "root", root)
        if self.covariance is not None:
            object.__setattr__(self, "covariance", np.asarray(self.covariance, dtype=float))
        if self.frequencies is not None:
            object.__setattr__(self, "frequencies", check_frequencies(self.frequencies))

    @property
    def is_default(self) -> bool:
        """True for the book's model (Gaussian, isotropic noise and uniform tokens)."""
        return self.noise.is_gaussian and self.covariance is None and self.frequencies is None

    def check(self, d: int, V: int, classes: int = 2) -> "ModelOptions":
        """These options, after checking their sizes against d and V/classes tokens per class."""
        if self.root is not None and self.root.shape[0] != d:
            raise ValueError(f"covariance must have dimension d = {d}, got {self.root.shape[0]}")
        if self.frequencies is not None and self.frequencies.size * classes != V:
            raise ValueError(f"frequencies must have one entry per token of a class (V / {classes} = "
                             f"{V / classes:g}), got length {self.frequencies.size}")
        return self

    def token_frequencies(self, classes: int = 2) -> np.ndarray | None:
        """Probability of each token id at a position, shape (V,) (classes equally likely); None if uniform."""
        return None if self.frequencies is None else np.tile(self.frequencies, classes) / classes

    def __repr__(self) -> str:
        parts = [f"noise={self.noise.label}"]
        parts += ["covariance=Sigma"] if self.covariance is not None else []
        parts += [f"frequencies=({self.frequencies.size} per class)"] if self.frequencies is not None else []
        return f"ModelOptions({', '.join(parts)})"
