r"""The formulas of the bulk law :math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)` and the
Marchenko-Pastur law, behind :class:`attnlib.theory.laws.Bulk` and :class:`attnlib.theory.laws.MarchenkoPastur`.

Every function broadcasts over its arguments (``x``, ``delta``, ``gamma``, ``kappa``) and returns a float when
all of them are scalars.
"""

from __future__ import annotations

from math import comb

import numpy as np

from attnlib.numerics import checks as _v

# The laws' formulas (bulk_density, bulk_edges, zero_atom, bulk_moments, bulk_stieltjes, mp_density, mp_edges,
# mp_moments) are the hooks of attnlib.theory.laws.Bulk and MarchenkoPastur, not exported.
__all__ = [
    "critical_x",
    "outlier_map",
]


def as_output(value):
    """A float for a 0-d result, the array otherwise."""
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


def together(**named) -> tuple:
    """The common shape of the named arguments (numpy broadcasting), checked at a public function's door.

    Raises ValueError naming the first two arguments that do not broadcast, with their shapes, instead of
    numpy's message that names none: ``together(alpha=[1, 2, 3], kappa=[1, 2, 3, 4])`` says that alpha of
    shape (3,) and kappa of shape (4,) must broadcast together.
    """
    shapes = {name: np.shape(value) for name, value in named.items()}
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        names = list(shapes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                try:
                    np.broadcast_shapes(shapes[a], shapes[b])
                except ValueError:
                    raise ValueError(
                        f"{a} and {b} must broadcast together (numpy rules: the same length, or one of them a "
                        f"scalar or of length 1), got {a} of shape {shapes[a]} and {b} of shape {shapes[b]}"
                    ) from None
        raise


def sigmas(delta, gamma):
    """The elementary symmetric functions sigma_1, sigma_2, sigma_3 of (1, delta, gamma)."""
    return 1.0 + delta + gamma, delta + gamma + delta * gamma, delta * gamma


def _finite_points(x) -> np.ndarray:
    x_arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x_arr)):
        raise ValueError("x must contain only finite numbers")
    return x_arr


def _complex_pair(B, C, D):
    """Real and (non-negative) imaginary part of the complex pair of roots of phi^3 + B phi^2 + C phi + D.

    Vectorised Cardano on the depressed cubic y^3 + p y + q (phi = y - B/3), using the numerically stable
    pairing u v = -p/3. Where all three roots are real the imaginary part is 0 (and the real part is
    meaningless).
    """
    p = C - B * B / 3.0
    q = 2.0 * B**3 / 27.0 - B * C / 3.0 + D
    disc = (q / 2.0) ** 2 + (p / 3.0) ** 3
    has_pair = disc > 0
    sq = np.sqrt(np.where(has_pair, disc, 0.0))
    # u = -sign(q) cbrt(|q|/2 + sqrt(disc)) never suffers cancellation; v = -p / (3u).
    u = -np.copysign(np.cbrt(np.abs(q) / 2.0 + sq), q)
    safe_u = np.where(u == 0, 1.0, u)
    v = np.where(u == 0, 0.0, -p / (3.0 * safe_u))
    real = -(u + v) / 2.0 - B / 3.0
    imag = np.where(has_pair, (np.sqrt(3.0) / 2.0) * np.abs(u - v), 0.0)
    return real, imag


def bulk_density(x, delta, gamma, kappa=1.0):
    r"""Density of the continuous part of :math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)`.

    With :math:`\psi(z) = zG(z) - 1` the law solves :math:`z\psi = (1+\psi)(1+\delta\psi)(1+\gamma\psi)`;
    in :math:`\varphi = 1/\psi` this is the monic cubic
    :math:`\varphi^3 + (\sigma_1 - z)\varphi^2 + \sigma_2\varphi + \sigma_3 = 0`, which stays well conditioned
    as delta or gamma -> 0. Inside the support it has a complex pair :math:`a \pm ib` and the density is
    :math:`b / (\pi z (a^2+b^2))` (vectorised Cardano, no loop; the modulus is formed with ``hypot`` so that
    the density stays finite up to a hard edge at 0). The result integrates to
    ``1 - zero_atom(delta, gamma)``.

    Parameters
    ----------
    x : array_like
        Points at which to evaluate (values <= 0 give 0).
    delta, gamma : float or array_like
        Aspect ratios d/V and d/N (> 0).
    kappa : float or array_like
        Scale ||w||^2 (> 0).

    Returns
    -------
    float or numpy.ndarray
        The density, broadcast over the arguments.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    x_arr = _finite_points(x)
    together(x=x_arr, delta=delta, gamma=gamma, kappa=kappa)
    t = x_arr / kappa
    s1, s2, s3 = sigmas(delta, gamma)
    a, b = _complex_pair(s1 - t, s2, s3)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        modulus = np.hypot(a, b)  # |phi|, without overflow next to a hard edge at 0 where |phi| -> infinity
        dens = (b / modulus) / modulus / (np.pi * t)
    dens = np.where((t > 0) & (b > 0), dens, 0.0) / kappa
    return as_output(dens)


def mp_edges(ratio, scale=1.0):
    """``(lower, upper)`` = scale (1 -+ sqrt(ratio))^2, the support of scale * MP_ratio (continuous part)."""
    ratio = _v.positive("ratio", ratio, allow_array=True)
    scale = _v.positive("scale", scale, allow_array=True)
    together(ratio=ratio, scale=scale)
    return as_output(scale * (1.0 - np.sqrt(ratio)) ** 2), as_output(scale * (1.0 + np.sqrt(ratio)) ** 2)


def mp_density(x, ratio, scale=1.0):
    """Density of the continuous part of scale * MP_ratio (Marchenko-Pastur law of mean ``scale``).

    The limit of both Wishart factors of the model: the vocabulary's (ratio delta = d/V) and, for a Gaussian
    population, the samples' (ratio gamma = d/N). Mass 1 - max(0, 1 - 1/ratio).
    """
    lo, hi = mp_edges(ratio, scale)
    ratio, scale = np.asarray(ratio, dtype=float), np.asarray(scale, dtype=float)
    x_arr = _finite_points(x)
    together(x=x_arr, ratio=ratio, scale=scale)
    inside = (x_arr > lo) & (x_arr < hi) & (x_arr > 0)
    safe = np.where(inside, x_arr, 1.0)
    dens = np.where(inside, np.sqrt(np.abs((hi - safe) * (safe - lo))) / (2.0 * np.pi * ratio * scale * safe),
                    0.0)
    return as_output(dens)


def critical_x(delta, gamma):
    """All three roots (descending) of x^3 - sigma_2 x - 2 sigma_3 = 0, the critical points of z(x).

    The largest, x*, is the sample-level threshold in the spike variable x = theta - delta; the smallest gives
    the lower bulk edge. The three roots are always real (sigma_2^3 >= 27 sigma_3^2 by AM-GM).
    """
    delta = _v.positive("delta", delta, allow_array=True)
    gamma = _v.positive("gamma", gamma, allow_array=True)
    together(delta=delta, gamma=gamma)
    _, s2, s3 = sigmas(delta, gamma)
    r = 2.0 * np.sqrt(s2 / 3.0)
    arg = np.clip((3.0 * s3 / s2) * np.sqrt(3.0 / s2), -1.0, 1.0)
    phase = np.arccos(arg) / 3.0
    return tuple(as_output(r * np.cos(phase - 2.0 * np.pi * k / 3.0)) for k in range(3))


def outlier_map(x, delta, gamma, kappa=1.0):
    """z(x) = kappa (x+1)(x+delta)(x+gamma)/x^2: sample outlier of a spike at x = theta - delta.

    It is also the inverse of the bulk's Stieltjes map at psi = 1/x, so its critical values are the edges.
    ``x`` must be finite and non-zero (z has a pole at 0); all arguments broadcast together.
    """
    x = _finite_points(x)
    if np.any(x == 0):
        raise ValueError("x must be non-zero: z(x) has a pole at x = 0 (x = theta - delta)")
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    together(x=x, delta=delta, gamma=gamma, kappa=kappa)
    return kappa * (x + 1.0) * (x + delta) * (x + gamma) / (x * x)


def bulk_edges(delta, gamma, kappa=1.0):
    """``(lower, upper)`` ends of the continuous support of kappa (MP_delta ⊠ MP_gamma)."""
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    together(delta=delta, gamma=gamma, kappa=kappa)
    x_top, _, x_low = critical_x(delta, gamma)
    lower = outlier_map(x_low, delta, gamma, kappa)
    upper = outlier_map(x_top, delta, gamma, kappa)
    return as_output(np.maximum(lower, 0.0)), as_output(upper)


def zero_atom(delta, gamma):
    """Mass of the atom at 0: the fraction of zero eigenvalues, max(0, 1 - 1/delta, 1 - 1/gamma)."""
    delta = _v.positive("delta", delta, allow_array=True)
    gamma = _v.positive("gamma", gamma, allow_array=True)
    together(delta=delta, gamma=gamma)
    return as_output(np.maximum(np.maximum(0.0, 1.0 - 1.0 / delta), 1.0 - 1.0 / gamma))


def bulk_moments(k, delta, gamma, kappa=1.0):
    """Exact moments m_1..m_k of kappa (MP_delta ⊠ MP_gamma) (atom included), as a float array.

    From the power series of psi in w = 1/z: psi = w (1 + sigma_1 psi + sigma_2 psi^2 + sigma_3 psi^3), whose
    coefficients are the moments: m_1 = 1, m_2 = sigma_1 = 1 + delta + gamma, m_3 = sigma_1^2 + sigma_2, ...
    Scalar ratios only.
    """
    k = _v.positive_int("k", k)
    delta, gamma, kappa = _v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa)
    s1, s2, s3 = sigmas(delta, gamma)
    coeffs = np.array([1.0, s1, s2, s3])
    psi = np.zeros(k + 1)  # psi[j] = coefficient of w^j, j = 0..k
    for _ in range(k):
        power = np.zeros(k + 1)
        power[0] = 1.0
        rhs = np.zeros(k + 1)
        for c in coeffs:  # rhs = 1 + s1 psi + s2 psi^2 + s3 psi^3, truncated at w^(k-1)
            rhs += c * power
            power = np.convolve(power, psi)[: k + 1]
        psi = np.concatenate(([0.0], rhs[:k]))
    return psi[1:] * kappa ** np.arange(1, k + 1)


def bulk_stieltjes(z, delta, gamma, kappa=1.0):
    r"""Stieltjes transform :math:`m(z) = \int dF(x)/(x - z)` of :math:`\kappa(\mathrm{MP}_\delta \boxtimes
    \mathrm{MP}_\gamma)` at complex z with Im z > 0, scalar ratios.

    The three roots :math:`\varphi` of the cubic of :func:`bulk_density` at :math:`t = z/\kappa` (eigenvalues of
    its companion matrix) give :math:`m = -(1 + 1/\varphi)/z`; the Stieltjes transform is the root with
    Im m > 0 and Im(z m) >= 0 (both hold for a law on [0, infinity)), the one of largest Im m among them.
    """
    z = np.asarray(z, dtype=complex)
    s1, s2, s3 = sigmas(delta, gamma)
    t = (z / kappa).ravel()
    companion = np.zeros((t.size, 3, 3), dtype=complex)
    companion[:, 0, :] = np.stack([t - s1, np.full(t.size, -s2), np.full(t.size, -s3)], axis=1)
    companion[:, 1, 0] = companion[:, 2, 1] = 1.0
    phi = np.linalg.eigvals(companion)
    m = -(1.0 + 1.0 / phi) / z.ravel()[:, None]
    ok = (m.imag > 0) & ((z.ravel()[:, None] * m).imag >= -1e-12 * np.abs(m))
    score = np.where(ok, m.imag, -np.inf)
    return m[np.arange(t.size), np.argmax(score, axis=1)].reshape(z.shape)


def mp_moments(k: int, ratio) -> np.ndarray:
    """Moments m_1..m_k of MP_ratio (mean 1): m_n = sum_j Narayana(n, j) ratio^(j-1)."""
    return np.array([sum(comb(n, j) * comb(n, j - 1) // n * ratio ** (j - 1) for j in range(1, n + 1))
                     for n in range(1, k + 1)], dtype=float)
