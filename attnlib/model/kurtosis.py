r"""The kurtosis of the pooled sign, :math:`\operatorname{kurt}(w^\top\xi) = \mathbb E[(w^\top\xi)^4] / \alpha^2`.

It is the one property of the sign process and the weights, beyond alpha = E[(w^T xi)^2] = w^T R w and
kappa, that the finite-size fluctuations of the outlier need (the ``beta4`` of
:func:`attnlib.theory.fluctuations.outlier_variance`): 1 when w^T xi = +-const (the optimal prefix weights),
3 for a Gaussian w^T xi, 3 - 2/T for mean pooling of independent signs.

:func:`pooled_kurtosis` computes it exactly when the process knows its law and lists at most
``max_sequences`` sequences (:meth:`attnlib.model.positional.SignProcess.law`: 2^T sequences for Markov or
independent signs, 2^B for B shared-sign blocks, the n rows of :func:`attnlib.model.positional.estimate`),
and otherwise estimates it from sampled sequences (:func:`attnlib.theory.fluctuations.fourth_moment_ratio`),
with a standard error; the result says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.model import weights as _w
from attnlib.model.positional import LAW_MAX_SEQUENCES, SignProcess
from attnlib.numerics import checks as _v
from attnlib.theory import fluctuations

__all__ = ["Kurtosis", "pooled_kurtosis", "SAMPLES"]

#: Sequences drawn when the law is not enumerated.
SAMPLES = 200_000


@dataclass(frozen=True)
class Kurtosis:
    """``value`` = E[(w^T xi)^4] / alpha^2; ``method``: "exact" (``sequences`` = the sequences of the law) or
    "sampled" (``sequences`` drawn; ``se`` its standard error, 0.0 when exact)."""

    value: float
    method: str
    sequences: int
    se: float = 0.0

    @property
    def how(self) -> str:
        """The method in words, "exact, law of m sequences" or "sampled, n sequences"."""
        return (f"exact, law of {self.sequences:,} sequences" if self.method == "exact" else
                f"sampled, {self.sequences:,} sequences")

    def __str__(self) -> str:
        value = f"{self.value:.6g}" if self.method == "exact" else f"{self.value:.4g} ± {self.se:.2g}"
        return f"kurt(wᵀξ) = {value} ({self.how})"


def pooled_kurtosis(process: SignProcess, w, *, rng: np.random.Generator | None = None, samples: int = SAMPLES,
                    max_sequences: int = LAW_MAX_SEQUENCES) -> Kurtosis:
    """kurt(w^T xi) for the signs of ``process`` pooled with weights ``w`` (length T), exactly or by sampling.

    Parameters
    ----------
    process : SignProcess
    w : array_like
        Pooling weights (any scale: the ratio does not depend on it).
    rng : numpy.random.Generator, optional
        Needed only when the law is not enumerated (then ``samples`` sequences are drawn from it).
    samples : int
        Sequences drawn when sampling; the standard error is about sqrt(kurtosis-dependent / samples).
    max_sequences : int
        Largest law enumerated exactly (2^20 by default: T <= 20 for Markov signs).
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {_v.short(process)}")
    w = _w.as_weights(w, process.T)
    law = process.law(max_sequences)
    if law is not None:
        seqs, prob = law
        a2 = (seqs.astype(float) @ w) ** 2
        return Kurtosis(float(prob @ a2**2 / (prob @ a2) ** 2), "exact", int(prob.size))
    if rng is None:
        raise ValueError(f"rng must be a numpy.random.Generator: the law of {process.name} is not enumerated "
                         f"(unknown in closed form, or over max_sequences = {max_sequences}), so it is sampled")
    rng = _v.rng(rng)
    samples = _v.positive_int("samples", samples, minimum=2)
    xi = SignProcess.sample.__wrapped__(process, samples, rng)
    value = fluctuations.fourth_moment_ratio(w, xi)
    a2 = (xi.astype(float) @ w) ** 2
    m2, m4 = a2.mean(), (a2**2).mean()
    influence = (a2**2 - m4) / m2**2 - 2.0 * m4 * (a2 - m2) / m2**3  # of m4 / m2^2, for its standard error
    return Kurtosis(value, "sampled", samples, float(influence.std(ddof=1) / np.sqrt(samples)))
