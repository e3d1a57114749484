r"""Finite-size fluctuations of the outlier's eigenvector: the variance of its squared overlaps with h and u.

Notation as in :mod:`attnlib.theory.fluctuations`: ``delta = d/V``, ``gamma = d/N``, ``kappa = ||w||^2``,
``theta = alpha (||mu||^2 + delta) / kappa``, ``x = theta - delta``, ``beta4 = E[(w^T xi)^4] / alpha^2`` (the
kurtosis of the pooled sign, :mod:`attnlib.model.kurtosis`). :func:`spike_variance` gives, at leading order in
1/d and above the sample threshold, the variances of the outlier eigenvalue of ``S`` and of the squared overlaps
of its eigenvector with h = mu + Zs/V and with u = mu/||mu||. Its eigenvalue variance is that of
:func:`attnlib.theory.fluctuations.outlier_variance`, reached by another route (a check of both).

Derivation. Condition on the tokens. The centred pooled vectors are the columns of
:math:`X = h a^\top + Y` (d x N): :math:`a_n = w^\top\xi_n` (:math:`\|a\|^2/N = \hat\alpha \to \alpha`) and
:math:`Y = Z P A_0^\top`, where ``P`` removes the directions s and 1 of R^V from the noise ``Z`` and :math:`A_0`
is the token-weight matrix with its class part removed. Since ``Z`` is Gaussian, h = mu + Zs/V is independent
of ``Y`` and the law of ``Y`` is invariant under rotations of R^d: the direction :math:`\hat h = h/\|h\|` is
uniform with respect to ``Y``. With :math:`Y' = Y/\sqrt N`, :math:`b = a/\|a\|`, :math:`\mathsf s^2 =
\hat\alpha\|h\|^2` and the resolvents :math:`Q = (\lambda - Y'Y'^\top)^{-1}`, :math:`\tilde Q = (\lambda -
Y'^\top Y')^{-1}`, an eigenvector ``v`` of :math:`S = XX^\top/N = (Y' + \mathsf s\hat h b^\top)(\cdot)^\top`
with eigenvalue :math:`\lambda` outside the bulk solves :math:`v = \mathsf s Q[\mathsf m\hat h + pY'b]` with
:math:`p = \hat h^\top v`, :math:`\mathsf m = b^\top Y'^\top v + \mathsf s p`. Projecting on :math:`\hat h` and
:math:`Y'b` gives, with the quadratic forms :math:`\mathsf a_k = \hat h^\top Q^k\hat h`, :math:`\mathsf b_k =
b^\top\tilde Q^k b`, :math:`\mathsf c_k = \hat h^\top Q^kY'b` (k = 1, 2; and :math:`Y'^\top QY' =
\lambda\tilde Q - 1`), the secular equation and the overlap

.. math:: (1 - \mathsf s\mathsf c_1)^2 = \mathsf s^2\lambda\mathsf a_1\mathsf b_1, \qquad
          \langle v, \hat h\rangle^{-2} = \frac{(1 - \mathsf s\mathsf c_1)^2\mathsf a_2}{\mathsf a_1^2}
          + \frac{2\mathsf s(1 - \mathsf s\mathsf c_1)\mathsf c_2}{\mathsf a_1}
          + \mathsf s^2(\lambda\mathsf b_2 - \mathsf b_1).

At leading order :math:`\mathsf a_1 \to G(\lambda)`, the Stieltjes transform of the bulk
:math:`\kappa(\mathrm{MP}_\delta\boxtimes\mathrm{MP}_\gamma)` (:math:`G = (1 + 1/x)/\lambda` at
:math:`\lambda = z(x)`), :math:`\mathsf b_1 \to \tilde G = \gamma G + (1 - \gamma)/\lambda` (the same spectrum
seen from the N side), :math:`\mathsf c_k \to 0`, :math:`\mathsf a_2 \to -G'`, :math:`\mathsf b_2 \to
-\tilde G'`, :math:`\mathsf s^2 \to \kappa\theta`: the secular equation gives :math:`\lambda = z(x)` and the
overlap :math:`(x^3 - \sigma_2x - 2\sigma_3) / (x^2(x + \gamma))`, the limits of :mod:`attnlib.theory`. The
fluctuations of order :math:`d^{-1/2}` are those of the inputs, independent at leading order:

* :math:`\mathsf a_1, \mathsf a_2`: quadratic forms of the uniform :math:`\hat h`,
  :math:`\mathrm{Cov}(\mathsf a_i, \mathsf a_j) = \frac2d[\tau_{i+j} - \tau_i\tau_j]`,
  :math:`\tau_k = \frac1d\mathrm{tr}\,Q^k = (-1)^{k-1}G^{(k-1)}/(k-1)!`;
* :math:`\mathsf b_1, \mathsf b_2`: the same on the N side with :math:`\frac2N` and :math:`\tilde G` (the
  kurtosis of the pooled sign cancels in the unit vector ``b``, the diagonal of :math:`\tilde Q` being flat);
* :math:`\mathsf c_1, \mathsf c_2`: linear in :math:`\hat h`, mean 0, :math:`\mathrm{Cov}(\mathsf c_i,
  \mathsf c_j) = \frac1d b^\top Y'^\top Q^{i+j}Y'b \to \frac1d[\lambda\tilde\tau_{i+j} - \tilde\tau_{i+j-1}]`;
* :math:`\mathsf s^2`: :math:`\hat\alpha/\alpha - 1` has variance :math:`(\operatorname{kurt}(w^\top\xi) -
  1)/N`, and :math:`\|h\|^2 = \|\mu\|^2 + 2\|\mu\|t + \|q\|^2` with :math:`t = u^\top q \sim N(0, \delta/d)` and
  :math:`\mathrm{Var}\|q\|^2 = 2\delta^2/d`.

Linearising the secular equation gives the fluctuation of :math:`\lambda` (the inputs then move with it
through :math:`G'`, :math:`G''`), and the overlap formula that of :math:`\langle v,\hat h\rangle^2`. For u:
:math:`\langle v, u\rangle = \langle v,\hat h\rangle c + \epsilon_\perp` with :math:`c^2 = \cos^2(h, u) =
(\|\mu\| + t)^2/\|h\|^2` and :math:`\epsilon_\perp`, the part of ``v`` orthogonal to :math:`\hat h` on ``u``,
of variance :math:`(1 - \langle v,\hat h\rangle^2)(1 - c^2)/d` (the law of ``Y`` is invariant under rotations
fixing :math:`\hat h`). So the fluctuation of :math:`\langle v,u\rangle^2` is :math:`c^2` times that of
:math:`\langle v,\hat h\rangle^2`, plus :math:`\langle v,\hat h\rangle^2` times that of :math:`c^2`, plus
:math:`2\langle v,\hat h\rangle c\,\epsilon_\perp`.

Like :func:`~attnlib.theory.fluctuations.outlier_variance` this fails near the sample threshold, where
:math:`z'(x) \to 0` and the fluctuations are of order :math:`d^{-2/3}`; neglected are relative corrections of
order :math:`d^{-1/2}` and the finite-T structure of the tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory._law import critical_x, sigmas

__all__ = ["SpikeVariance", "spike_variance"]

_ORDER = 4  # Taylor order of G: the traces tau_1..tau_4 and G'' are needed


@dataclass(frozen=True)
class SpikeVariance:
    """Leading-order variances of the outlier of ``S`` (``eigenvalue``) and of its eigenvector's squared
    overlaps with h (``overlap_h``) and u = mu/||mu|| (``overlap_u``, ``nan`` at ||mu||^2 = 0, where u does
    not exist); the ``sd_*`` properties are their square roots."""

    eigenvalue: float
    overlap_h: float
    overlap_u: float

    @property
    def sd_eigenvalue(self) -> float:
        return float(np.sqrt(self.eigenvalue))

    @property
    def sd_overlap_h(self) -> float:
        return float(np.sqrt(self.overlap_h))

    @property
    def sd_overlap_u(self) -> float:
        return float(np.sqrt(self.overlap_u))


def _taylor(x0: float, delta: float, gamma: float, kappa: float) -> tuple[float, np.ndarray]:
    """``(lambda0, g)``: the outlier z(x0) and the Taylor coefficients g_k = G^(k)(lambda0)/k! of the bulk's
    Stieltjes transform G(lambda) = (1 + 1/x(lambda))/lambda, x(lambda) the branch of z^{-1} through x0."""
    s1, s2, s3 = sigmas(delta, gamma)
    k = np.arange(_ORDER + 1)
    c = kappa * (s2 * (-1.0) ** k / x0 ** (k + 1) + s3 * (-1.0) ** k * (k + 1) / x0 ** (k + 2))
    c[0], c[1] = kappa * (x0 + s1 + s2 / x0 + s3 / x0**2), c[1] + kappa  # z(x0 + t) = sum_k c_k t^k

    def mul(a, b):
        return np.convolve(a, b)[: _ORDER + 1]

    def inverse(a):
        out = np.zeros(_ORDER + 1)
        out[0] = 1.0 / a[0]
        for n in range(1, _ORDER + 1):
            out[n] = -np.dot(a[1: n + 1], out[n - 1:: -1][:n]) / a[0]
        return out

    t = np.zeros(_ORDER + 1)  # x(lambda0 + e) - x0 = sum_k t_k e^k: reversion of the series of z
    t[1] = 1.0 / c[1]
    for _ in range(_ORDER + 1):
        power, composed = np.eye(_ORDER + 1)[0], np.zeros(_ORDER + 1)
        for j in range(1, _ORDER + 1):
            power = mul(power, t)
            composed += c[j] * power
        composed[1] -= 1.0
        t -= composed / c[1]
    x = t + np.eye(_ORDER + 1)[0] * x0
    one_plus = inverse(x) + np.eye(_ORDER + 1)[0]
    return float(c[0]), mul(one_plus, inverse(np.array([c[0], 1.0, 0.0, 0.0, 0.0])))


def spike_variance(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0) -> SpikeVariance:
    """Leading-order variances of the outlier of ``S`` and of its squared overlaps with h and u (module docstring).

    Parameters
    ----------
    delta, gamma : float
        Ratios d/V and d/N (> 0).
    theta : float
        Spike strength alpha (||mu||^2 + delta) / kappa; must exceed the sample threshold delta + x*.
    d : int
        Dimension (N = d / gamma sequences).
    kappa : float
        ||w||^2 (> 0).
    mu_norm2 : float
        ||mu||^2 (>= 0); at 0 the overlap with u is undefined and its variance ``nan``.
    beta4 : float
        E[(w^T xi)^4] / alpha^2 (>= 1), e.g. :func:`attnlib.model.kurtosis.pooled_kurtosis`.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa)
    theta, d = _v.positive("theta", theta), _v.positive_int("d", d)
    m, beta4 = _v.nonnegative("mu_norm2", mu_norm2), _v.positive("beta4", beta4)
    if beta4 < 1.0 - 1e-12:
        raise ValueError(f"beta4 = E[(w^T xi)^4] / alpha^2 must be >= 1, got {beta4!r}")
    x_star = critical_x(delta, gamma)[0]
    if not theta - delta > x_star:
        raise ValueError(f"theta must exceed the sample threshold delta + x* = {delta + x_star:.6g} (an outlier), "
                         f"got {theta!r}")
    lam, g = _taylor(theta - delta, delta, gamma, kappa)
    gt = gamma * g + (1.0 - gamma) * (-1.0) ** np.arange(_ORDER + 1) / lam ** np.arange(1, _ORDER + 2)
    tau, tau_t = (lambda k: (-1.0) ** (k - 1) * g[k - 1]), (lambda k: (-1.0) ** (k - 1) * gt[k - 1])
    n_seq, sig2 = d / gamma, kappa * theta
    sig = np.sqrt(sig2)
    # the inputs' fluctuations: dA, dA2, dB, dB2, dC, dC2, alpha-hat/alpha - 1, t, ||q||^2 - delta, eps
    cov = np.zeros((10, 10))
    for i in (1, 2):
        for j in (1, 2):
            cov[i - 1, j - 1] = 2.0 / d * (tau(i + j) - tau(i) * tau(j))
            cov[i + 1, j + 1] = 2.0 / n_seq * (tau_t(i + j) - tau_t(i) * tau_t(j))
            cov[i + 3, j + 3] = (lam * tau_t(i + j) - tau_t(i + j - 1)) / d
    cov[6, 6], cov[7, 7], cov[8, 8] = (beta4 - 1.0) / n_seq, delta / d, 2.0 * delta**2 / d
    d_sig = np.zeros(10)  # relative fluctuation of sigma^2 = alpha-hat ||h||^2
    d_sig[6], d_sig[7], d_sig[8] = 1.0, 2.0 * np.sqrt(m) / (m + delta), 1.0 / (m + delta)
    A, A1, A2 = g[0], g[1], 2.0 * g[2]  # G, G', G''
    B, B1, B2 = gt[0], gt[1], 2.0 * gt[2]
    grad_F = -sig2 * lam * A * B * d_sig  # secular F = (1 - sig C)^2 - sig2 lam A B, at C = 0
    grad_F[0], grad_F[2], grad_F[4] = grad_F[0] - sig2 * lam * B, grad_F[2] - sig2 * lam * A, -2.0 * sig
    grad_lam = grad_F / (sig2 * (A * B + lam * A1 * B + lam * A * B1))
    D = -A1 / A**2 + sig2 * (-B - lam * B1)  # 1 / overlap with h
    grad_D = ((-A2 / A**2 + 2.0 * A1**2 / A**3) + sig2 * (-2.0 * B1 - lam * B2)) * grad_lam
    grad_D += sig2 * (-B - lam * B1) * d_sig
    grad_D[:6] += [2.0 * A1 / A**3, 1.0 / A**2, -sig2, sig2 * lam, 2.0 * sig * A1 / A**2, 2.0 * sig / A]
    o_h, grad_h = 1.0 / D, -grad_D / D**2
    c2 = m / (m + delta)
    cov[9, 9] = (1.0 - o_h) * (1.0 - c2) / d
    grad_u = c2 * grad_h
    grad_u[7:] += [o_h * 2.0 * np.sqrt(m) * delta / (m + delta) ** 2, -o_h * m / (m + delta) ** 2,
                   2.0 * np.sqrt(o_h * c2)]
    var = [float(v @ cov @ v) for v in (grad_lam, grad_h, grad_u)]
    return SpikeVariance(var[0], var[1], var[2] if m > 0 else float("nan"))
