r"""Token frequencies: Zipf-distributed tokens, the effective vocabulary and the class-centroid shift.

Within each class, token k (of n = V/K) is drawn with probability :math:`f_k`; a position then holds token v
with probability :math:`\pi_v = f_{k(v)}/K`. Three consequences (two classes, Gaussian noise, derived in the
universality chapter):

* the centroid shift :math:`q = \sum_v \pi_v s_v z_v` is :math:`\mathcal N(0, \sum_v\pi_v^2\, I_d)`, so
  :math:`\|q\|^2 \approx d\sum_v\pi_v^2 = d/V_\text{eff}` with the effective vocabulary size
  :math:`V_\text{eff} = 1/\sum_v \pi_v^2` (Kish's effective sample size): :func:`effective_vocabulary`,
  :func:`centroid_shift`;
* the noise part of the population covariance is :math:`Z\,\mathrm{diag}(\pi)Z^\top` up to two rank-one
  terms, a generalised Marchenko-Pastur law with the token-side population :math:`\omega_v = V\pi_v`
  (:func:`population`, then :mod:`attnlib.theory.population` with ``side="tokens"``);
* the most frequent tokens, atoms of that population far above the others, become outliers of their own.

:func:`effective_vocabulary` and :func:`centroid_shift` (= d / V_eff) are functions of the model's frequencies that
read them through the model's own check of a frequency vector, so they stay with the model variant: an exception
to "every closed form in theory" (listed in tests/test_closed_forms.py); the laws they feed are in
:mod:`attnlib.theory.population`.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory.population import Population
from attnlib.model.variants import check_frequencies

__all__ = ["zipf", "effective_vocabulary", "centroid_shift", "population"]


def zipf(n: int, s: float) -> np.ndarray:
    """Zipf(s) frequencies of n tokens: f_k = k^(-s) / sum_j j^(-s), k = 1..n (s = 0: uniform)."""
    n = _v.positive_int("n", n)
    s = _v.nonnegative("s", s)
    f = np.arange(1, n + 1, dtype=float) ** (-s)
    return f / f.sum()


def effective_vocabulary(frequencies, classes: int = 2) -> float:
    r""":math:`V_\text{eff} = 1/\sum_v\pi_v^2 = K/\sum_k f_k^2` for K classes sharing the within-class ``frequencies``.

    V for uniform tokens; about the number of tokens that carry most of the positions when a few dominate.
    """
    f = check_frequencies(frequencies)
    K = _v.positive_int("classes", classes, minimum=2)
    return float(K / np.sum(f**2))


def centroid_shift(d: int, frequencies, classes: int = 2) -> float:
    r"""Limit of :math:`\|q\|^2` (the squared norm of the noise part of the class centroid h): d / V_eff.

    :math:`\delta\, m_2(H)` in the token-side population's terms (:math:`m_2 = V/V_\text{eff}`); delta for
    uniform tokens.
    """
    return _v.positive_int("d", d) / effective_vocabulary(frequencies, classes)


def population(frequencies) -> Population:
    """The token-side population law H of omega = n f_k (mean 1) for :mod:`attnlib.theory.population`."""
    return Population.from_frequencies(check_frequencies(frequencies))
