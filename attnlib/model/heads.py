r"""Many heads in the finite model: a :class:`HeadsSetting` is a :class:`~attnlib.model.setting.Setting` (sizes,
signal, sign process) and H heads W (T x H), pooled and concatenated, c_n = vec(X_n W) in R^{dH}.

The setting holds a Setting rather than repeating its fields: ``base`` gives d, V, N, ||mu||^2 and the process
(its own weights are not used), and every theory question goes to :mod:`attnlib.theory.heads`. Summed heads are
one head, w = sum_h w^(h) (:meth:`HeadsSetting.summed`). :func:`heads_population_covariance` forms the exact
covariance of c given the vocabulary at small d.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory import HeadsBulk, heads as _th
from attnlib.model import weights as _w
from attnlib.model.generative import Vocabulary, population_covariance as _single
from attnlib.model.setting import Setting, check_setting

__all__ = ["HeadsSetting", "causal_heads", "random_heads", "heads_population_covariance"]


def causal_heads(T: int, taus, *, reversed_heads=()) -> np.ndarray:
    """(T, H) heads: the causal-attention limit weights at each tau of ``taus``; the heads whose index is in
    ``reversed_heads`` are anti-causal (the same weights read from the end: w_t -> w_{T+1-t})."""
    taus = np.atleast_1d(_v.finite_array("taus", taus))
    W = np.stack([_w.causal(T, float(tau)) for tau in taus], axis=1)
    for h in reversed_heads:
        if not 0 <= h < W.shape[1]:
            raise ValueError(f"reversed_heads must hold head indices 0..{W.shape[1] - 1}, got {h!r}")
        W[:, h] = W[::-1, h]
    return W


def random_heads(T: int, H: int, rng: np.random.Generator) -> np.ndarray:
    """(T, H) heads with i.i.d. N(0, 1/T) weights (nested: the first H' columns are the heads of H' <= H)."""
    T, H = _v.positive_int("T", T), _v.positive_int("H", H)
    return _v.rng(rng).standard_normal((T, H)) / np.sqrt(T)


@dataclass(frozen=True, eq=False)
class HeadsSetting:
    """A Setting ``base`` (sizes, ||mu||^2, process) with heads ``heads`` (T x H) instead of its weights."""

    base: Setting
    heads: np.ndarray = field(repr=False)
    label: str = ""

    def __post_init__(self):
        check_setting(self.base, "base")
        object.__setattr__(self, "heads", _th.check_heads(self.heads, self.base.T))

    def replace(self, **changes) -> "HeadsSetting":
        """A copy with ``heads`` or ``label`` changed, or fields of ``base`` (``d``, ``mu_norm2``, ...)."""
        own = {k: changes.pop(k) for k in ("heads", "label") if k in changes}
        return HeadsSetting(self.base.replace(**changes) if changes else self.base,
                            own.get("heads", self.heads), own.get("label", self.label))

    def head(self, h: int) -> Setting:
        """Head ``h`` alone, as a one-head Setting."""
        return self.base.replace(weights=self.heads[:, h], label=f"head {h}")

    def summed(self) -> Setting:
        """Summed heads: sum_h X w^(h) = X (sum_h w^(h)), one head with the summed weights."""
        return self.base.replace(weights=self.heads.sum(axis=1), label="summed heads")

    def whitened(self) -> "HeadsSetting":
        """The heads W (WᵀW)^{-1/2}: the same span, orthonormal."""
        return self.replace(heads=_th.whiten(self.heads), label=f"{self.label} whitened".strip())

    @property
    def H(self) -> int:
        return self.heads.shape[1]

    @property
    def d(self) -> int:
        return self.base.d

    @property
    def delta(self) -> float:
        return self.base.delta

    @property
    def gamma(self) -> float:
        return self.base.gamma

    @property
    def R(self) -> np.ndarray:
        return self.base.R

    @property
    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """(A, B) = (WᵀRW, WᵀW)."""
        return _th.head_matrices(self.R, self.heads)

    @property
    def pencil(self) -> np.ndarray:
        """The eigenvalues of the pencil (WᵀRW, WᵀW), descending."""
        return _th.pencil(self.R, self.heads)

    def spikes(self, direction: str = "u") -> _th.HeadSpikes:
        """The signal's spikes (overlaps with R^H ⊗ mu, or R^H ⊗ h)."""
        return _th.signal_spikes(self.delta, self.gamma, R=self.R, W=self.heads, mu_norm2=self.base.mu_norm2,
                                 direction=direction)

    def thresholds(self) -> tuple[np.ndarray, np.ndarray]:
        """(population, sample) thresholds on ||mu||^2 of every spike."""
        return _th.head_thresholds(self.delta, self.gamma, R=self.R, W=self.heads)

    def bulk_edge(self) -> float:
        """Upper edge of the bulk of S."""
        return HeadsBulk(self.delta, self.gamma, self.matrices[1]).upper

    def population_edge(self) -> float:
        """Upper edge of the noise part of the population covariance."""
        return _th.population_edge(self.delta, B=self.matrices[1])

    def __repr__(self) -> str:
        return f"HeadsSetting(H={self.H}, base={self.base!r}, label={self.label!r})"


def heads_population_covariance(vocab: Vocabulary, R, W, *, centered: bool = True) -> np.ndarray:
    """Cov(c | E) = (WᵀRW) ⊗ hhᵀ + (WᵀW) ⊗ W' of the concatenated heads, formed (dH x dH; small d only).

    Uncentred (``centered=False``): E[ccᵀ | E], which adds (Wᵀ1)(1ᵀW) ⊗ ggᵀ. W', h and g are those of
    :func:`attnlib.model.generative.population_covariance`.
    """
    if not isinstance(vocab, Vocabulary):
        raise ValueError(f"vocab must be an attnlib.model.generative.Vocabulary, got {vocab!r}")
    A, B = _th.head_matrices(R, W)
    W = _th.check_heads(W)
    parts = _single(vocab, W[:, 0], R, parts=True)
    h, g = parts["h"], parts["g"]
    out = np.kron(A, np.outer(h, h)) + np.kron(B, parts["W_prime"])
    if not centered:
        s = W.sum(axis=0)
        out += np.kron(np.outer(s, s), np.outer(g, g))
    return out
