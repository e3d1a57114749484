r"""Finite-size fluctuations of the top eigenvalue of ``S``: Tracy-Widom at the edge, Gaussian for an outlier.

Notation as in :mod:`attnlib.theory`: ``delta = d/V``, ``gamma = d/N``, ``kappa = ||w||^2``, ``alpha = w^T R w``,
``theta = alpha (||mu||^2 + delta) / kappa``, ``x = theta - delta``; :math:`\sigma_2 = \delta + \gamma + \delta\gamma`,
:math:`\sigma_3 = \delta\gamma`, :math:`\sigma_1 = 1 + \delta + \gamma`; the bulk is
:math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)` with inverse Stieltjes map

.. math::  z(x) = \kappa\,\frac{(x+1)(x+\delta)(x+\gamma)}{x^2}
                = \kappa\Big(x + \sigma_1 + \frac{\sigma_2}{x} + \frac{\sigma_3}{x^2}\Big),

i.e. :math:`z(1/\psi(\lambda)) = \lambda` with :math:`\psi(\lambda) = \lambda G(\lambda) - 1`,
:math:`G(\lambda) = \int \mu(dt) / (\lambda - t)`. Its critical point :math:`x_*` (largest root of
:math:`x^3 - \sigma_2 x - 2\sigma_3`) gives the upper edge :math:`E = z(x_*)`.

No outlier: the edge
    :func:`edge_constant` (density :math:`\approx (c/\pi)\sqrt{E - \lambda}` below the edge), :func:`edge_scale`
    (the Tracy-Widom scale :math:`(c\,d)^{-2/3}`) and :func:`standardize`; the standardised top eigenvalue is
    compared with :mod:`attnlib.theory.tracy_widom`.

The critical window of the sample transition
    :func:`window_width` (width :math:`\sqrt{2\ell/z''(x_*)} \propto d^{-1/3}` in ``x``), :func:`window_position`
    (the distance to the threshold in window widths), :func:`edge_quantile` (quantiles of
    :math:`\mathrm{TW}_1`) and :func:`window_half_width` (the half-width :math:`\sqrt{q}` in window widths for
    the margin quantile q at :data:`WINDOW_LEVEL`).

An outlier: Gaussian fluctuations of order :math:`d^{-1/2}`
    :func:`outlier_variance` (the variance split by source) and :func:`outlier_sd`; :func:`fourth_moment_ratio`
    estimates the one property of the sign process and weights they need beyond ``alpha`` and ``kappa``,
    :math:`\beta_4 = \mathbb{E}[(w^\top\xi)^4] / \alpha^2`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq

from attnlib.numerics import checks as _v
from attnlib.theory import _law as _bulk
from attnlib.theory import tracy_widom

__all__ = ["OutlierVariance", "WINDOW_LEVEL", "edge_constant", "edge_quantile", "edge_scale", "fourth_moment_ratio",
           "outlier_sd", "outlier_variance", "standardize", "window_half_width", "window_position", "window_width"]

#: The level of the margin that defines the critical window. A point is in the window when its *limit* outlier
#: would sit less than q, the ``WINDOW_LEVEL`` quantile of TW_1 (in edge scales), above the edge. A margin, not a
#: detection probability (see :func:`window_half_width`).
WINDOW_LEVEL = 0.95


def edge_constant(delta, gamma, kappa=1.0) -> float:
    r"""Constant ``c`` of the square-root edge: bulk density :math:`\approx (c/\pi)\sqrt{E - \lambda}` as
    :math:`\lambda \to E^-`.

    Derivation. Near its critical point :math:`z(x) = E + \tfrac12 z''(x_*)(x - x_*)^2 + O((x - x_*)^3)`, so
    for :math:`\lambda = E - \varepsilon` (inside the bulk) the inverse branch is
    :math:`x = x_* \pm i\sqrt{2\varepsilon / z''(x_*)} + O(\varepsilon)`, the sign being the one that makes
    the density positive. From :math:`G = (1 + \psi)/\lambda = (1 + 1/x)/\lambda` and
    :math:`\mathrm{Im}(1/x) = -\mathrm{Im}\,x / |x|^2`, the density :math:`|\mathrm{Im}\,G|/\pi` is

    .. math:: \rho(E - \varepsilon) = \frac{1}{\pi}\,\frac{\sqrt{2/z''(x_*)}}{x_*^2 E}\,\sqrt{\varepsilon}
              + O(\varepsilon).

    With :math:`z''(x) = \kappa(2\sigma_2 / x^3 + 6\sigma_3 / x^4)` this simplifies to

    .. math:: c = \frac{1}{E\,\sqrt{\kappa\,(\sigma_2 x_* + 3\sigma_3)}}.

    Check (Marchenko-Pastur, :math:`\delta \to 0`, :math:`\kappa = 1`): :math:`x_* = \sqrt\gamma`,
    :math:`E = (1+\sqrt\gamma)^2`, so :math:`c = \gamma^{-3/4}(1+\sqrt\gamma)^{-2}`, which is the coefficient of
    :math:`\sqrt{(b-\lambda)(\lambda-a)}/(2\pi\gamma\lambda)` at :math:`b`, since :math:`\sqrt{b - a} =
    2\gamma^{1/4}`. The relative error of the square-root law is :math:`O(\varepsilon)`, which is what
    the tests check against :class:`attnlib.theory.laws.Bulk`.

    Parameters
    ----------
    delta, gamma : float
        Aspect ratios d/V and d/N (> 0).
    kappa : float
        Scale ||w||^2 of the bulk (> 0).

    Returns
    -------
    float
        ``c`` (units: 1 / eigenvalue^(3/2), so that ``c sqrt(E - x)`` is a density).
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa)
    x_star = _bulk.critical_x(delta, gamma)[0]
    upper = float(_bulk.outlier_map(x_star, delta, gamma, kappa))
    s2, s3 = delta + gamma + delta * gamma, delta * gamma
    return float(1.0 / (upper * np.sqrt(kappa * (s2 * x_star + 3.0 * s3))))


def edge_scale(delta, gamma, kappa, d) -> float:
    r"""Tracy-Widom scale of the top eigenvalue of the d x d matrix ``S`` when there is no outlier.

    Derivation (the square-root rule). With ``d`` eigenvalues of density :math:`(c/\pi)\sqrt{E - \lambda}`, the
    expected number in :math:`[E - \ell u, E]` is :math:`d\,c\,\ell^{3/2}\,(2/3\pi)\,u^{3/2}`; the local edge
    statistics depend only on this count, so they coincide with those of any other ensemble with the same
    count in the same units. The real Gaussian ensemble (GOE, off-diagonal variance 1/n, semicircle on
    [-2, 2]) has :math:`\rho(\lambda) \approx (1/\pi)\sqrt{2 - \lambda}`, i.e. ``c = 1``, and
    :math:`\lambda_{\max} = 2 + n^{-2/3}\,\mathrm{TW}_1`: so ``d c l^(3/2) = 1`` and

    .. math:: \ell = (c\,d)^{-2/3}, \qquad \lambda_{\max} \approx E + \ell\,\mathrm{TW}_1.

    Check (Marchenko-Pastur, :math:`\delta \to 0`): :math:`(c\,d)^{-2/3} = N^{-2/3}(1+\sqrt\gamma)
    (1 + 1/\sqrt\gamma)^{1/3}`, Johnstone's (2001) scale :math:`\sigma_{Np}/N` of the largest eigenvalue of a
    real white Wishart matrix divided by ``N``.

    Parameters
    ----------
    delta, gamma : float
        Aspect ratios d/V and d/N (> 0); use the exact finite-size ratios.
    kappa : float
        Scale ||w||^2 (> 0).
    d : int
        Dimension of ``S`` (the number of its eigenvalues).

    Returns
    -------
    float
        The scale :math:`(c\,d)^{-2/3}`.
    """
    d = _v.positive_int("d", d)
    return float((edge_constant(delta, gamma, kappa) * d) ** (-2.0 / 3.0))


def standardize(delta, gamma, top, kappa, d):
    r"""Standardised top eigenvalue :math:`(\lambda_{\max} - E) / (c\,d)^{-2/3}`, approximately :math:`\mathrm{TW}_1`.

    Parameters
    ----------
    delta, gamma : float
        Ratios (> 0), as in :func:`edge_scale`.
    top : float or array_like
        Top eigenvalue(s) of ``S`` (finite).
    kappa : float
        Scale (> 0), as in :func:`edge_scale`.
    d : int
        Dimension of ``S``.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``top``.

    Notes
    -----
    This is the leading-order centring. At finite d the edge sits lower by O(1/d), i.e. O(d^(-1/3)) in these
    units: for delta = 0.5, gamma = 0.25, T = 16 and mean pooling of independent signs, the simulated mean is
    about -1.5 d^(-1/3) below the Tracy-Widom mean (-0.25 at d = 200, -0.15 at d = 1600), while the spread
    agrees with TW_1 within a few per cent. Part of the offset is the degrees of freedom lost to centring the
    pooled vectors (evaluate the edge at N - 1 instead of N).
    """
    arr = _v.finite_array("top", top)
    upper = _bulk.bulk_edges(delta, gamma, kappa)[1]
    out = (arr - upper) / edge_scale(delta, gamma, kappa, d)
    return float(out) if out.ndim == 0 else out


@lru_cache(maxsize=16)
def edge_quantile(p: float = WINDOW_LEVEL) -> float:
    """The ``p`` quantile of TW_1 (``TracyWidom().cdf(q) = p``): a top eigenvalue without an outlier exceeds
    ``E + q * edge_scale`` with probability about ``1 - p`` (0.99: q = 2.02; 0.95: q = 0.98)."""
    p = _v.positive("p", p)
    if not p < 1:
        raise ValueError(f"p must be a probability in (0, 1), got {p!r}")
    tw = tracy_widom.TracyWidom()
    return float(brentq(lambda s: tw.cdf(s) - p, -8.0, 8.0, xtol=1e-12))


@lru_cache(maxsize=16)
def window_half_width(level: float = WINDOW_LEVEL) -> float:
    r"""Half-width of the critical window in window widths: :math:`\sqrt{q}`, q the ``level`` quantile of TW_1.

    A strength is in the window when :math:`|t| < \sqrt q`, :math:`t = (x - x_*)/w_d` (:func:`window_position`):
    its limit outlier :math:`E + \ell t^2` would sit less than the margin :math:`q\,\ell` above the edge, the
    ``level`` quantile of the top eigenvalue of a matrix without signal. The rule needs q > 0, i.e. ``level``
    above :math:`F_{\mathrm{TW}_1}(0) \approx 0.83` (the TW_1 mass below 0); a lower level has a negative
    margin, below the edge where no limit outlier lies, and raises ``ValueError``.

    Not a probability of detection: at the window's edge the limit outlier sits at the margin and a draw's top
    eigenvalue fluctuates around it on the scale :math:`\ell`, so it clears the margin about half the time.
    """
    q = edge_quantile(level)
    if not q > 0:
        raise ValueError(f"level must exceed the TW_1 mass below 0, {tracy_widom.TracyWidom().cdf(0.0):.4f}, so that "
                         f"the margin quantile is positive; got level = {level!r} (quantile {q:.4g})")
    return float(np.sqrt(q))


def window_width(delta, gamma, d) -> float:
    r"""Width :math:`w_d = \sqrt{2\ell/z''(x_*)}` of the critical window of the sample transition, in ``x``.

    Derivation. Near the threshold the limit outlier is :math:`z(x) = E + \tfrac12 z''(x_*)(x - x_*)^2 + \dots`
    (``z`` has its minimum ``E`` at :math:`x_*`), so at :math:`x = x_* + t\,w_d` it sits :math:`\ell t^2` above
    the edge, with :math:`\ell = (c\,d)^{-2/3}` the Tracy-Widom scale (:func:`edge_scale`). The outlier is
    told apart from the edge's own fluctuations only when :math:`t^2` exceeds a quantile of TW_1, hence a
    window :math:`|x - x_*| \lesssim w_d \propto d^{-1/3}` (Baik, Ben Arous and Peche 2005). Both
    :math:`\ell` and :math:`z''` are proportional to kappa, which cancels.

    ``delta``, ``gamma``: ratios d/V and d/N (> 0); ``d``: the dimension. Returns :math:`w_d` (the same for
    every kappa); :math:`w_d = w_1 d^{-1/3}` exactly.
    """
    delta, gamma, _ = _v.ratios(delta, gamma, 1.0)
    x_star = _bulk.critical_x(delta, gamma)[0]
    s2, s3 = delta + gamma + delta * gamma, delta * gamma
    z2 = 2.0 * s2 / x_star**3 + 6.0 * s3 / x_star**4
    return float(np.sqrt(2.0 * edge_scale(delta, gamma, 1.0, d) / z2))


def window_position(delta, gamma, theta, d):
    r"""Distance to the sample threshold in window widths, :math:`t = (\theta - \delta - x_*) / w_d`.

    ``theta`` may be an array. A point is in the critical window when ``|t| <`` :func:`window_half_width`:
    there the limit outlier would sit less than the margin, the :data:`WINDOW_LEVEL` (95%) quantile of the
    edge's Tracy-Widom fluctuation, above E.
    """
    delta, gamma, _ = _v.ratios(delta, gamma, 1.0)
    theta = _v.finite_array("theta", theta)
    t = (theta - delta - _bulk.critical_x(delta, gamma)[0]) / window_width(delta, gamma, d)
    return float(t) if t.ndim == 0 else t


@dataclass(frozen=True)
class OutlierVariance:
    """Variance of the outlier eigenvalue of ``S`` split by source (see :func:`outlier_variance`).

    All fields are variances (eigenvalue units squared) at leading order in 1/d.
    ``sampling_gaussian``: sampling N sequences, as if the pooled signal w^T xi were Gaussian;
    ``sampling_kurtosis``: the correction for the actual fourth moment of w^T xi (negative when beta4 < 3);
    ``vocabulary_norm``: the fluctuation of ||h||^2; ``vocabulary_direction``: the fluctuation of the
    direction of h relative to the vocabulary noise.
    """

    sampling_gaussian: float
    sampling_kurtosis: float
    vocabulary_norm: float
    vocabulary_direction: float

    @property
    def sampling(self) -> float:
        return self.sampling_gaussian + self.sampling_kurtosis

    @property
    def vocabulary(self) -> float:
        return self.vocabulary_norm + self.vocabulary_direction

    @property
    def total(self) -> float:
        return self.sampling + self.vocabulary

    @property
    def sd(self) -> float:
        return float(np.sqrt(self.total))


def outlier_variance(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0) -> OutlierVariance:
    r"""Leading-order variance of the outlier eigenvalue of ``S`` above the sample threshold, by source.

    Setting. Given the vocabulary, a pooled vector is :math:`c = a\,h + y` with :math:`a = w^\top\xi`
    (:math:`\mathbb{E}a^2 = \alpha`, :math:`\mathbb{E}a^4 = \beta_4\alpha^2`), :math:`h = \mu + Zs/V` and a noise
    ``y`` uncorrelated with ``a``, of covariance :math:`\kappa W'` (the within-class scatter of the vocabulary);
    so the population covariance is :math:`\Sigma = \kappa W' + \alpha h h^\top`. For Gaussian vectors the
    class means (hence ``h``) are independent of the within-class scatter (hence :math:`W'`). The variance
    splits exactly as :math:`\mathrm{Var}\,\lambda = \mathbb{E}\,\mathrm{Var}(\lambda\,|\,\text{vocabulary}) +
    \mathrm{Var}\,\mathbb{E}(\lambda\,|\,\text{vocabulary})`, and each piece is computed at first order.
    With :math:`x = \theta - \delta`: population outlier :math:`\ell(x) = \kappa(x+1)(x+\delta)/x`, sample
    outlier :math:`z(x)`, :math:`z'(x) = \kappa(1 - \sigma_2/x^2 - 2\sigma_3/x^3)`,
    :math:`\ell'(x) = \kappa(1 - \delta/x^2)`, and :math:`\psi = z \circ \ell^{-1}` maps population to sample
    outliers, :math:`\psi'(\ell) = z'(x)/\ell'(x)`.

    1. Sampling, given the vocabulary (``N = d / gamma`` sequences). Take first Gaussian ``a`` and ``y``. In
       the eigenbasis of :math:`\Sigma` let :math:`g_n` be the standardised coordinate of :math:`c_n` on the top
       eigenvector (variance :math:`\ell`) and :math:`Y_b` the other coordinates, independent of ``g``. A Schur
       complement turns the eigenvalue equation into :math:`1 = (\ell/N)\,g^\top \tilde Q(\lambda) g` with
       :math:`\tilde Q(\lambda) = (\lambda - Y_b Y_b^\top/N)^{-1}`. Its diagonal concentrates on
       :math:`\tilde m(\lambda)`, the N-side Stieltjes transform of the bulk, and
       :math:`\ell\,\tilde m(\psi(\ell)) = 1` defines the outlier map (indeed
       :math:`\tilde m(z(x)) = (x + \gamma)/(x\,z(x)) = 1/\ell(x)`, so :math:`\psi = z \circ \ell^{-1}`;
       differentiating, :math:`\tilde m' = -1/(\ell^2\psi')`). The quadratic form
       :math:`g^\top\tilde Q g / N` fluctuates with variance :math:`[2(-\tilde m') + (\mathbb{E}g^4 - 3)
       \tilde m^2]/N` and has slope :math:`\tilde m'` in :math:`\lambda`, so
       :math:`\mathrm{Var}\,\lambda = [2\ell^2\psi' + (\mathbb{E}g^4 - 3)\ell^2\psi'^2]/N` (for white noise
       the Gaussian part is Paul's 2007 formula, and the kurtosis term Bai and Yao's 2008). In the model only
       ``a`` is non-Gaussian (``y`` is a sum of T draws from the near-Gaussian vocabulary). Redoing the
       expansion with :math:`c = a h + y`, whose secular equation is
       :math:`(1 - h^\top Q Y^\top a/N)^2 = \lambda\,(h^\top Q h)(a^\top \tilde Q a/N)`
       (:math:`Q = (\lambda - Y^\top Y/N)^{-1}`), shows that its fourth moment enters only through
       :math:`\frac1N\sum_n a_n^2 \tilde Q_{nn}`, i.e. as a fluctuation of alpha in excess of the
       Gaussian one:

       .. math:: \mathrm{Var}_{\rm samp} = \frac{1}{N}\Big[2\ell^2\psi'(\ell)
                 + (\beta_4 - 3)\,\alpha^2\Big(\frac{\partial\lambda}{\partial\alpha}\Big)^2\Big],
                 \qquad \alpha\,\frac{\partial\lambda}{\partial\alpha} = \theta\,z'(x).

       For the optimal prefix weights :math:`a = \pm 1` exactly (:math:`\beta_4 = 1`): the fluctuation of
       :math:`\frac1N\sum a_n^2` vanishes and the correction is :math:`-2\theta^2 z'^2/N`.

    2. Vocabulary. The conditional mean is :math:`\psi(\ell_V)` with :math:`\ell_V` the top eigenvalue of
       :math:`\Sigma`, solution of :math:`1 = \alpha\|h\|^2\,u^\top(\ell - \kappa W')^{-1}u`, ``u = h/||h||``
       uniform on the sphere and independent of :math:`W'` and of ``||h||``. With ``G`` the Stieltjes
       transform of :math:`\kappa\,\mathrm{MP}_\delta`, :math:`G(\ell(x)) = 1/(\kappa\theta)`, and
       :math:`\mathrm{Var}(u^\top A u) \approx \frac2d[\frac1d\mathrm{tr}A^2 - (\frac1d\mathrm{tr}A)^2]`
       with :math:`\frac1d\mathrm{tr}(\ell - \kappa W')^{-2} \to -G'(\ell)`, linearising gives
       :math:`\delta x = \theta\,\delta\|h\|^2/\|h\|^2 + \kappa\theta^2\,\delta(u^\top(\ell-\kappa W')^{-1}u)`,
       and :math:`-G' - G^2 = \delta / (\kappa^2\theta^2 (x^2 - \delta))`. Since
       :math:`\|h\|^2 = \|\mu\|^2 + 2\mu^\top q + \|q\|^2`, :math:`q \sim N(0, I_d/V)`,
       :math:`\mathrm{Var}\|h\|^2 = (2\delta^2 + 4\delta\|\mu\|^2)/d`. Hence

       .. math:: \mathrm{Var}_{\rm voc} = \frac{\theta^2 z'(x)^2}{d}\Big[
                 \frac{2\delta(\delta + 2\|\mu\|^2)}{(\delta + \|\mu\|^2)^2} + \frac{2\delta}{x^2 - \delta}\Big].

    Every term carries :math:`z'(x)`, which vanishes at the sample threshold :math:`x_*`: there the
    fluctuations are of order :math:`d^{-2/3}` and not Gaussian, and the first-order expansion fails; use
    the formula well above :math:`x_*`. Neglected: relative corrections of order :math:`d^{-1/2}`, the
    finite-T structure of the tokens (a few per cent when few positions carry weight), and the lower-order
    dependence between ``a`` and ``y`` (they are uncorrelated, but the classes have their own scatter).
    At ``gamma = 0`` (infinitely many sequences) the sample outlier is the population outlier: the sampling part
    vanishes, and the vocabulary part is the variance of the population outlier over vocabularies (z = l).

    Parameters
    ----------
    delta, gamma : float
        Ratios d/V (> 0) and d/N (>= 0).
    theta : float
        Spike strength alpha (||mu||^2 + delta) / kappa; must exceed the threshold delta + x* (delta + sqrt(delta)
        at gamma = 0).
    d : int
        Dimension (N = d / gamma sequences).
    kappa : float
        ||w||^2 (> 0).
    mu_norm2 : float
        ||mu||^2 (>= 0).
    beta4 : float
        E[(w^T xi)^4] / alpha^2 (>= 1 by Jensen; 1 for a = +-const, 3 for Gaussian a);
        see :func:`fourth_moment_ratio`.

    Returns
    -------
    OutlierVariance
        The four contributions; ``.total`` and ``.sd``.
    """
    delta, _, kappa = _v.ratios(delta, 1.0, kappa)
    gamma, theta = _v.nonnegative("gamma", gamma), _v.positive("theta", theta)
    d = _v.positive_int("d", d)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    beta4 = _v.positive("beta4", beta4)
    if beta4 < 1.0 - 1e-12:
        raise ValueError(f"beta4 = E[(w^T xi)^4] / alpha^2 must be >= 1, got {beta4!r}")
    x_star = _bulk.critical_x(delta, gamma)[0] if gamma > 0 else float(np.sqrt(delta))
    x = theta - delta
    if not x > x_star:
        raise ValueError(f"theta must exceed the sample threshold delta + x* = {delta + x_star:.6g} (an outlier), "
                         f"got {theta!r}")
    s2, s3 = delta + gamma + delta * gamma, delta * gamma
    n_seq = d / gamma if gamma > 0 else np.inf
    z1 = kappa * (1.0 - s2 / x**2 - 2.0 * s3 / x**3)
    ell = kappa * (x + 1.0) * (x + delta) / x
    psi1 = z1 / (kappa * (1.0 - delta / x**2))
    slope2 = (theta * z1) ** 2
    return OutlierVariance(
        sampling_gaussian=float(2.0 * ell**2 * psi1 / n_seq),
        sampling_kurtosis=float((beta4 - 3.0) * slope2 / n_seq),
        vocabulary_norm=float(slope2 * 2.0 * delta * (delta + 2.0 * mu_norm2) / (delta + mu_norm2) ** 2 / d),
        vocabulary_direction=float(slope2 * 2.0 * delta / (x**2 - delta) / d),
    )


def outlier_sd(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0) -> float:
    """Standard deviation of the outlier eigenvalue of ``S``: ``outlier_variance(...).sd`` (same arguments)."""
    return outlier_variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4).sd


def fourth_moment_ratio(w, xi) -> float:
    r"""Estimate :math:`\beta_4 = \mathbb{E}[(w^\top\xi)^4] / (\mathbb{E}[(w^\top\xi)^2])^2` from sampled signs.

    Parameters
    ----------
    w : array_like
        Pooling weights, shape (T,).
    xi : array_like
        Signs +-1 of shape (n, T) drawn from the sign process (e.g. ``process.sample(n, rng)``), n >= 2.

    Returns
    -------
    float
        The ratio of the empirical moments (1 for the optimal prefix weights, 3 - 2/T for mean pooling of
        independent signs).
    """
    xi = np.asarray(xi)
    if xi.ndim != 2 or xi.shape[0] < 2 or not np.all(np.abs(xi) == 1):
        raise ValueError(f"xi must be an (n, T) array of +-1 signs with n >= 2, got shape {xi.shape}")
    w = _v.weights_vector("w", w, xi.shape[1])
    a2 = (xi.astype(float) @ w) ** 2
    if not np.any(a2 > 0):
        raise ValueError("w^T xi vanishes on every sampled sequence; beta4 is undefined")
    return float(np.mean(a2**2) / np.mean(a2) ** 2)
