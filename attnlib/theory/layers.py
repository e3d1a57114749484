r"""More layers: the limit weights of stacked parameter-free causal self-attention at the paper's tau/d scaling.

Layer l maps the sequence y^(l-1) (T x d, y^(0) = the token embeddings x) to y^(l) = P_l y^(l-1) (or to
(I + P_l) y^(l-1) with a residual connection), where query t attends to the keys s <= t with the softmax of
tau_l y_tᵀ y_s / d. In the limit d -> infinity with ||x_t||^2/d -> 1 and x_tᵀx_s/d -> 0 (s != t), the
scores of layer l are deterministic: y^(l-1) = Q_{l-1} x with a fixed T x T matrix Q_{l-1}, so
y_tᵀ y_s / d -> (Q_{l-1} Q_{l-1}ᵀ)_{ts}, and

.. math:: P_l = \operatorname{softmax}_{s\le t}\big(\tau_l (Q_{l-1}Q_{l-1}^\top)_{ts}\big), \qquad
          Q_l = P_l Q_{l-1} \ \text{(or } (I + P_l) Q_{l-1}\text{)}, \qquad w = Q_L^\top \mathbf 1 / T,

the read-out being the mean over positions of the last layer. One layer (Q_0 = I) gives
:func:`attnlib.model.weights.causal`; every layer's attention is fixed, and the stack is one fixed weight
vector :func:`stacked_weights`. Without residuals, Q_L -> 1 e_1ᵀ as L grows: the weights tend to e_1 (every
position ends up attending to the first token) and alpha/kappa to R_11 = 1.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["causal_softmax", "stacked_weights", "stack"]


def causal_softmax(scores) -> np.ndarray:
    """Row-wise softmax over the keys s <= t of a (T, T) score matrix (lower triangular, rows summing to 1)."""
    S = _v.finite_array("scores", scores)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.size == 0:
        raise ValueError(f"scores must be a square (T, T) matrix, got shape {S.shape}")
    T = S.shape[0]
    S = np.where(np.tril(np.ones((T, T), bool)), S, -np.inf)
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    return P / P.sum(axis=1, keepdims=True)


def stack(T: int, taus, *, residual: bool = False) -> list[np.ndarray]:
    """The limit attention matrices P_1, ..., P_L of a stack of L = len(taus) causal layers (T x T each)."""
    T = _v.positive_int("T", T)
    taus = np.atleast_1d(_v.finite_array("taus", taus)).astype(float)
    if taus.ndim != 1 or taus.size == 0:
        raise ValueError(f"taus must be a non-empty list of score scales, one per layer, got {taus!r}")
    Q, out = np.eye(T), []
    for tau in taus:
        P = causal_softmax(tau * (Q @ Q.T))
        out.append(P)
        Q = (P + np.eye(T)) @ Q if residual else P @ Q
    return out


def stacked_weights(T: int, taus, *, residual: bool = False) -> np.ndarray:
    """The limit pooling weights w = Q_Lᵀ 1 / T of L = len(taus) stacked causal layers (module docstring).

    Without residuals they sum to 1; with residuals to 2^L (the scale does not change alpha/kappa).
    """
    Q = np.eye(_v.positive_int("T", T))
    for P in stack(T, taus, residual=residual):
        Q = (P + np.eye(T)) @ Q if residual else P @ Q
    return Q.sum(axis=0) / T
