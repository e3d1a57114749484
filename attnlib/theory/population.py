r"""The generalised bulk law and signal spike: a discrete population law on the noise side or the token side.

Two departures from the book's model change the bulk through a *population* law H (atoms ``t_j``, masses
``p_j``), and the same machinery handles both:

* ``side="noise"``: noise covariance Sigma (:class:`attnlib.model.variants.ModelOptions`), H = spectrum of Sigma, on
  the d side. The noise part of the population covariance is :math:`\Sigma^{1/2}XPX^\top\Sigma^{1/2}/V`;
* ``side="tokens"``: token frequencies pi, H = law of :math:`\omega_v = V\pi_v` (mean 1), on the V side: the
  noise part is :math:`Z\,\mathrm{diag}(\pi)Z^\top` (minus two rank-one terms).

With :math:`\psi_H(y) = \int t\,dH(t)/(y - t)`, Voiculescu's S-transform (the S-transforms of free
multiplicative convolution multiply) gives the law of S/kappa through its *subordination point* y:

.. math:: z(y) = y\,(1 + \delta\psi_H)(1 + \gamma\psi_H) \ \text{(noise)}, \qquad
          z(y) = y\,(\delta + \psi_H)(1 + \tfrac{\gamma}{\delta}\psi_H) \ \text{(tokens)},

and :math:`1 + \psi_S(z) = zG(z)` with :math:`\psi_S = \psi_H(y)` (noise) or :math:`\psi_H(y)/\delta`
(tokens). gamma = 0 gives the population law. For H = delta_1 both are the book's map
``theory.outlier_map`` (noise: y = 1 + x; tokens: y = (x + delta)/delta). The upper edge is z at the largest
critical point y* above the largest atom (``PopulationBulk``); a spike whose subordination point y
exceeds y* gives an outlier z(y), with the sample-to-population overlap factor z_0 z'/(z z_0') (z_0: gamma = 0).

The signal: h = mu + q, and the outlier of kappa W' + alpha h h^T solves (alpha/kappa) F(y) = 1, where F(y) is
the limit of :math:`h^\top(\ell - W')^{-1}h` at :math:`\ell = z_0(y)`:

* noise side: :math:`F = (a(y) + \delta\psi_H)/(1 + \delta\psi_H)`, :math:`a(y) = \mu^\top(y - \Sigma)^{-1}\mu`
  (``mu_weights``: ||mu||^2 split over the eigenspaces of Sigma); q ~ N(0, Sigma/V) is independent of W';
* token side: :math:`F = \|\mu\|^2/(\delta y) + 1 - 1/(y\psi_H(y))`; here q = Z(pi s) is built from the same
  noise as W' and leans on the frequent tokens, which the second term accounts for.

The population overlap with h is :math:`1/((\alpha/\kappa)^2\|h\|^2\,(-F'(y)/z_0'(y)))`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from attnlib.numerics import checks as _v
from attnlib.theory import single_token as _counts
from attnlib.theory._spikes import Spike
from attnlib.theory.laws import SpectralLaw, edge_map

__all__ = ["SIDES", "Population", "PopulationBulk", "signal_function", "population_signal", "critical_snr",
           "critical_mu_norm2"]

#: The two places a population law acts, the noise (d side, covariance) or the tokens (V side, frequencies).
SIDES = ("noise", "tokens")


@dataclass(frozen=True, eq=False)
class Population:
    """A discrete population law H: ``atoms`` (> 0) with ``masses`` (> 0, summing to 1), on ``side``."""

    atoms: np.ndarray
    masses: np.ndarray
    side: str = "noise"

    def __post_init__(self):
        t = _v.finite_vector("atoms", self.atoms)
        p = _v.finite_vector("masses", self.masses)
        if t.shape != p.shape or np.any(t <= 0) or np.any(p <= 0) or abs(p.sum() - 1) > 1e-9:
            raise ValueError("atoms and masses must be positive vectors of one length, masses summing to 1")
        _v.choice("side", self.side, SIDES)
        object.__setattr__(self, "atoms", t)
        object.__setattr__(self, "masses", p / p.sum())

    @classmethod
    def from_covariance(cls, covariance) -> "Population":
        """H = spectrum of a noise covariance (d variances, or a (d, d) positive definite matrix)."""
        cov = np.asarray(covariance, dtype=float)
        vals = cov if cov.ndim == 1 else np.linalg.eigvalsh(cov)
        if not np.all(np.isfinite(vals)) or np.any(vals <= 0):
            raise ValueError("covariance must be finite and positive definite")
        return cls(*_grouped(vals), side="noise")

    @classmethod
    def from_frequencies(cls, frequencies) -> "Population":
        """H = law of omega = n f_k over the n tokens of a class (the same for every class): mean 1."""
        f = _v.finite_vector("frequencies", frequencies)
        if np.any(f <= 0) or abs(f.sum() - 1) > 1e-9:
            raise ValueError("frequencies must be positive and sum to 1")
        return cls(*_grouped(f.size * f), side="tokens")

    def moment(self, k: int) -> float:
        """The k-th moment of H."""
        return float(np.sum(self.masses * self.atoms ** _v.positive_int("k", k)))

    def psi(self, y, derivative: bool = False):
        r""":math:`\psi_H(y) = \sum_j p_j t_j/(y - t_j)` (or its derivative in y), vectorised over y."""
        y = np.asarray(y)[..., None]
        return np.sum(self.masses * self.atoms / (y - self.atoms) ** (2 if derivative else 1), axis=-1) * (
            -1 if derivative else 1)


def _grouped(values) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values (to 12 significant digits) and their frequencies."""
    vals, counts = np.unique(np.round(np.asarray(values, dtype=float), 12), return_counts=True)
    return vals, counts / counts.sum()


def _check(population, delta, gamma):
    if not isinstance(population, Population):
        raise ValueError(f"population must be an attnlib.theory.population.Population, got {population!r}")
    return population, _v.positive("delta", delta), _v.nonnegative("gamma", gamma)


def _psi_pair(y, H: Population):
    """psi_H(y) and psi_H'(y) from one array of 1/(y - t_j) (matrix products over the atoms)."""
    y = np.asarray(y)
    r = 1.0 / (y.reshape(-1, 1) - H.atoms)
    pt = H.masses * H.atoms
    return (r @ pt).reshape(y.shape), -((r * r) @ pt).reshape(y.shape)


def _map(y, H: Population, delta: float, gamma: float):
    """z(y) and z'(y) (validated arguments)."""
    s, ds = _psi_pair(y, H)
    if H.side == "noise":
        a, da, c = 1 + delta * s, delta * ds, gamma
    else:
        a, da, c = delta + s, ds, gamma / delta
    b, db = 1 + c * s, c * ds
    return y * a * b, a * b + y * (da * b + a * db)


def _subordination(z, population: Population, delta, gamma, *, steps: int = 14, newton: int = 30):
    """The subordination point y(z) (Im y > 0) for z with Im z > 0, vectorised.

    Newton's method on z(y) = z, continued along z_j = Re z + i eta_j with eta_j falling geometrically from
    max(4, 2|z|) to Im z (the approach of :mod:`attnlib.theory.single_token`), each step halved while it would leave the
    upper half plane. Raises ValueError if a point did not converge (residual above 1e-8 relative).
    """
    H = population
    z = np.asarray(z, dtype=complex)
    if not np.all(np.isfinite(z)) or not np.all(z.imag > 0):
        raise ValueError("z must be finite with Im z > 0")
    shape, z = z.shape, z.ravel()
    x, eta_end = z.real, z.imag
    eta0 = np.maximum(4.0, 2.0 * np.abs(z))
    scale = 1.0 if H.side == "noise" else 1.0 / delta
    y = (x + 1j * eta0) * scale
    for j in range(steps + 1):
        zj = x + 1j * eta0 * (eta_end / eta0) ** (j / steps)
        active = np.ones(y.shape, bool)
        for _ in range(newton):  # Newton on the points that still move
            f, df = _map(y[active], H, delta, gamma)
            step = (f - zj[active]) / df
            for _ in range(60):
                bad = (y[active] - step).imag <= 0
                if not bad.any():
                    break
                step = np.where(bad, step / 2, step)
            y[active] -= step
            active[active] = np.abs(step) > 1e-13 * np.abs(y[active])
            if not active.any():
                break
    residual = np.abs(_map(y, H, delta, gamma)[0] - z) / np.maximum(1.0, np.abs(z))
    if np.any(residual > 1e-8):
        raise ValueError(f"the subordination equation did not converge (largest residual {residual.max():.2g})")
    return y.reshape(shape)


def _stieltjes(z, population: Population, delta, gamma, kappa=1.0):
    r"""Stieltjes transform :math:`m(z) = \int dF(x)/(x - z)` of the law of S (scale ``kappa``), Im z > 0.

    Token side at gamma = 0 (the population law of token frequencies) is the equation that
    :func:`attnlib.theory.single_token` solves for token counts, and is solved by its solver; otherwise through
    the subordination point.
    """
    H, delta, gamma = _check(population, delta, gamma)
    kappa = _v.positive("kappa", kappa)
    z = np.asarray(z, dtype=complex) / kappa
    if H.side == "tokens" and gamma == 0:
        if not np.all(np.isfinite(z)) or not np.all(z.imag > 0):
            raise ValueError("z must be finite with Im z > 0")
        out = np.asarray(_counts._solve(z, delta, H.atoms, H.masses)) / kappa
    else:
        y = _subordination(z, H, delta, gamma)
        out = -(1.0 + (H.psi(y) if H.side == "noise" else H.psi(y) / delta)) / z / kappa
    return out if out.ndim else complex(out)


def _density(x, population: Population, delta, gamma, kappa=1.0):
    """Density of the law of S at real ``x`` (vectorised): Im m(x + i eta)/pi, eta = 1e-9 (kappa + abs(x))."""
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("x must contain only finite numbers")
    m = _stieltjes(x + 1e-9j * (kappa + np.abs(x)), population, delta, gamma, kappa)
    out = np.where(x > 0, np.maximum(np.imag(m), 0.0) / np.pi, 0.0)
    return out if out.ndim else float(out)


def _critical_point(population: Population, delta, gamma) -> float:
    """y*: the critical point of z(y) above the largest atom (z decreases from +inf, then increases)."""
    H, delta, gamma = _check(population, delta, gamma)
    top = H.atoms.max()
    ys = top * (1.0 + np.geomspace(1e-9, 1e3, 4000))
    up = np.flatnonzero(_map(ys, H, delta, gamma)[1] > 0)
    if not up.size or up[0] == 0:
        raise ValueError("no critical point of z(y) found above the largest atom")
    i = up[0]
    return float(brentq(lambda y: _map(y, H, delta, gamma)[1], ys[i - 1], ys[i], xtol=1e-14 * top, rtol=1e-13))


def _upper_edge(population: Population, delta, gamma, kappa=1.0) -> float:
    """Upper end of the support of the law of S: kappa z(y*)."""
    y = _critical_point(population, delta, gamma)
    return float(_v.positive("kappa", kappa) * _map(y, population, delta, gamma)[0])


def _lower_edge(population: Population, delta, gamma, kappa=1.0) -> float:
    """Lower end of the support: kappa times the largest positive local maximum of z(y) over real y below the
    smallest atom (where z stops increasing: the end of the gap above 0), or 0 (a hard edge)."""
    H, delta, gamma = _check(population, delta, gamma)
    t0 = H.atoms.min()
    ys = np.concatenate((-t0 * np.geomspace(1e6, 1e-9, 6000), t0 * np.linspace(1e-9, 1 - 1e-9, 6000)))
    dz = _map(ys, H, delta, gamma)[1]
    best = 0.0
    for i in np.flatnonzero((dz[:-1] > 0) & (dz[1:] <= 0)):
        y = brentq(lambda t: _map(t, H, delta, gamma)[1], ys[i], ys[i + 1], xtol=1e-15, rtol=1e-13)
        best = max(best, float(_map(y, H, delta, gamma)[0]))
    return _v.positive("kappa", kappa) * best


class PopulationBulk(SpectralLaw):
    """The law of S with a discrete ``population`` law H on one side (module docstring), of scale ``kappa``.

    ``gamma`` = 0 gives the population law. The CDF integrates the density on ``points`` abscissae packed near
    both edges by the trapezoid rule (raises ValueError if it does not integrate to the mass outside the atom
    within 2e-3); the moments come from the Stieltjes transform by a contour integral around the support.
    """

    _MASS_TOLERANCE = 2e-3

    def __init__(self, delta, gamma, population: Population, kappa=1.0, *, points: int = 3001):
        self.population, self.delta, self.gamma = _check(population, delta, gamma)
        self.kappa = _v.positive("kappa", kappa)
        self.points = _v.positive_int("points", points, minimum=101)
        self.name = f"generalised law ({population.side} side)"

    def _support(self):
        args = (self.population, self.delta, self.gamma, self.kappa)
        return _lower_edge(*args), _upper_edge(*args)

    def _atom(self):
        delta, gamma = self.delta, self.gamma
        return max(0.0, 1 - 1 / delta, 1 - 1 / gamma) if gamma > 0 else max(0.0, 1 - 1 / delta)

    def _density(self, x):
        return _density(x, self.population, self.delta, self.gamma, self.kappa)

    def _stieltjes(self, z):
        return _stieltjes(z, self.population, self.delta, self.gamma, self.kappa)

    def _nodes(self):
        lo, hi = self.support
        x = lo + (hi - lo) * edge_map(np.linspace(0.0, 1.0, self.points))[0]
        return x, self._density(x), np.diff(x)

    def critical_point(self) -> float:
        """y*: the critical point of z(y) above the largest atom, the subordination point of the upper edge."""
        return _critical_point(self.population, self.delta, self.gamma)

    def law_map(self, y):
        """``(z(y), z'(y))`` at scale 1, the inverse of the subordination map (module docstring)."""
        return _map(np.asarray(y, dtype=complex if np.iscomplexobj(y) else float), self.population, self.delta,
                    self.gamma)


def signal_function(delta, y, population: Population, mu_norm2=0.0, mu_weights=None):
    """``(F(y), F'(y))``: the limit of h^T (l - W')^{-1} h at l = z_0(y) (module docstring), and its derivative.

    ``mu_weights`` (noise side): ||mu||^2 split over the atoms of H (the squared norms of the projections of
    mu on the eigenspaces of Sigma); default: all of ``mu_norm2`` on the largest atom.
    """
    H, delta, _ = _check(population, delta, 0.0)
    y = np.asarray(y, dtype=float)
    s, ds = H.psi(y), H.psi(y, derivative=True)
    if H.side == "tokens":
        m = _v.nonnegative("mu_norm2", mu_norm2)
        return m / (delta * y) + 1 - 1 / (y * s), -m / (delta * y**2) + (s + y * ds) / (y * s) ** 2
    c = _mu_weights(H, mu_norm2, mu_weights)
    a = np.sum(c / (y[..., None] - H.atoms), axis=-1)
    da = -np.sum(c / (y[..., None] - H.atoms) ** 2, axis=-1)
    den = 1 + delta * s
    return (a + delta * s) / den, ((da + delta * ds) * den - (a + delta * s) * delta * ds) / den**2


def _mu_weights(H: Population, mu_norm2, mu_weights) -> np.ndarray:
    if mu_weights is None:
        c = np.zeros(H.atoms.size)
        c[np.argmax(H.atoms)] = _v.nonnegative("mu_norm2", mu_norm2)
        return c
    c = _v.finite_vector("mu_weights", mu_weights)
    if c.size != H.atoms.size or np.any(c < 0):
        raise ValueError(f"mu_weights must be {H.atoms.size} non-negative numbers (one per atom of H)")
    return c


def _h_norm2(H: Population, delta, mu_norm2, mu_weights) -> float:
    """Limit of ||h||^2: ||mu||^2 + delta m_1(H) (noise side) or ||mu||^2 + delta m_2(H) (token side)."""
    if H.side == "tokens":
        return _v.nonnegative("mu_norm2", mu_norm2) + delta * H.moment(2)
    return float(_mu_weights(H, mu_norm2, mu_weights).sum()) + delta * H.moment(1)


def population_signal(delta, gamma, snr, population: Population, kappa=1.0, *, mu_norm2=0.0, mu_weights=None,
                      direction: str = "h") -> Spike:
    """The signal spike with ``snr`` = alpha/kappa on the generalised bulk: outliers and overlaps.

    Solves (alpha/kappa) F(y) = 1 for y above the population critical point; the population outlier is
    kappa z_0(y) and the sample outlier kappa z(y) if y also exceeds the sample critical point (else nan and
    overlap 0). ``theta`` of the result is (alpha/kappa) ||h||^2 in its limit.

    ``direction``: overlaps with h (``"h"``) or with mu (``"mu"``). The population eigenvector is
    proportional to R h, R = (l - W')^{-1}, so its cos^2 with a direction u is (u^T R h)^2 / (||u||^2 h^T R^2 h),
    with h^T R h = kappa/alpha, mu^T R h = mu^T R mu = F(y) - F(y)|_{mu=0} and h^T R^2 h = -F'(y)/z_0'(y).
    When h and W' are not independent (token frequencies) or Sigma is not isotropic, the overlap with mu is
    not the overlap with h times cos^2(h, mu). The sample stage multiplies either by z_0 z' / (z z_0').
    """
    H, delta, gamma = _check(population, delta, gamma)
    snr, kappa = _v.positive("snr", snr), _v.positive("kappa", kappa)
    direction = _v.choice("direction", direction, ("h", "mu"))
    y_pop, y_smp = _critical_point(H, delta, 0.0), _critical_point(H, delta, gamma)
    h2 = _h_norm2(H, delta, mu_norm2, mu_weights)
    F = lambda y: snr * signal_function(delta, y, H, mu_norm2, mu_weights)[0] - 1.0  # noqa: E731
    nan = float("nan")
    if F(y_pop) <= 0:
        return Spike(theta=snr * h2, population_eigenvalue=nan, sample_eigenvalue=nan, population_overlap=0.0,
                     sample_overlap=0.0, direction=direction)
    hi = 2.0 * y_pop
    while F(hi) > 0:
        hi *= 2.0
    y = brentq(F, y_pop, hi, xtol=1e-14 * y_pop, rtol=1e-13)
    z0, dz0 = _map(y, H, delta, 0.0)
    z, dz = _map(y, H, delta, gamma)
    dF = signal_function(delta, y, H, mu_norm2, mu_weights)[1]
    curvature = -dF / dz0  # h^T R^2 h
    if direction == "h":
        pop_ov = float(1.0 / (snr**2 * h2 * curvature))
    else:
        m2 = h2 - _h_norm2(H, delta, 0.0, None if mu_weights is None else 0 * np.asarray(mu_weights))
        mu_part = signal_function(delta, y, H, mu_norm2, mu_weights)[0] - signal_function(
            delta, y, H, 0.0, None if mu_weights is None else 0 * np.asarray(mu_weights))[0]
        pop_ov = float(mu_part**2 / (m2 * curvature)) if m2 > 0 else 0.0
    smp = y > y_smp
    return Spike(theta=snr * h2, population_eigenvalue=float(kappa * z0),
                 sample_eigenvalue=float(kappa * z) if smp else nan, population_overlap=pop_ov,
                 sample_overlap=float(pop_ov * z0 * dz / (z * dz0)) if smp else 0.0, direction=direction)


def critical_snr(delta, gamma, population: Population, *, mu_norm2=0.0, mu_weights=None) -> tuple[float, float]:
    """``(population, sample)`` thresholds on alpha/kappa: 1/F at the two critical points."""
    H, delta, gamma = _check(population, delta, gamma)
    return tuple(float(1.0 / signal_function(delta, _critical_point(H, delta, g), H, mu_norm2, mu_weights)[0])
                 for g in (0.0, gamma))


def critical_mu_norm2(delta, gamma, snr, population: Population, *, mu_fractions=None) -> tuple[float, float]:
    """``(population, sample)`` thresholds on ||mu||^2 at a given ``snr`` = alpha/kappa (0 if the centroid
    shift q alone is enough).

    F is affine in ||mu||^2, so each threshold solves snr F(y*) = 1 in closed form. ``mu_fractions`` (noise
    side): the fractions of ||mu||^2 on each atom of H (default: all on the largest).
    """
    H, delta, gamma = _check(population, delta, gamma)
    snr = _v.positive("snr", snr)
    frac = None if mu_fractions is None else _mu_weights(H, 1.0, mu_fractions)
    if frac is not None and abs(frac.sum() - 1) > 1e-9:
        raise ValueError("mu_fractions must sum to 1")
    out = []
    for g in (0.0, gamma):
        y = _critical_point(H, delta, g)
        F0 = signal_function(delta, y, H, 0.0, None if frac is None else 0 * frac)[0]
        F1 = signal_function(delta, y, H, 1.0, frac)[0] - F0
        out.append(float(max(0.0, (1.0 / snr - F0) / F1)))
    return tuple(out)
