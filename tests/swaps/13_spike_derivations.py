"""Wrong formulas that the closing checks of book/13_spike_derivations.md must reject (tests/test_swaps.py)."""

CHAPTER = "13_spike_derivations"

# (indented like the patches below, so that textwrap.dedent aligns the two parts)
_SPIKE = """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _out(a):
            return a if np.ndim(a) else float(a)
"""

SWAPS = {
    # the overlap of the sample eigenvector with h taken to be the sampling factor alone (as if v_pop were h)
    "one-stage overlap": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(x > np.sqrt(delta), 1.0 - delta / x**2, 1.0)
                one_stage = np.where(sp.sample_overlap > 0, np.minimum(sp.sample_overlap / factor, 1.0), 0.0)
            return dataclasses.replace(sp, sample_overlap=_out(one_stage))
        _swap(_S, "spike", _wrong)
    """,
    # the population outlier with x^2 in the denominator
    "population outlier over x^2": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                moved = np.where(np.isfinite(sp.population_eigenvalue), sp.population_eigenvalue / x, np.nan)
            return dataclasses.replace(sp, population_eigenvalue=_out(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the threshold cubic with the delta <-> gamma symmetry broken: sigma_2 = delta + gamma + delta^2
    "sample threshold cubic with delta^2 for delta gamma": """
        _L = attnlib.theory._law
        _critical = _L.critical_x
        def _wrong(delta, gamma):
            d_, g_ = np.asarray(delta, dtype=float), np.asarray(gamma, dtype=float)
            # the positive root of x^3 - s2 x - 2 s3 with s2 = delta + gamma + delta^2, s3 = delta gamma
            s2, s3 = d_ + g_ + d_**2, d_ * g_
            r = 2.0 * np.sqrt(s2 / 3.0)
            top = r * np.cos(np.arccos(np.clip(3.0 * s3 / s2 * np.sqrt(3.0 / s2), -1.0, 1.0)) / 3.0)
            return (top if np.ndim(top) else float(top),) + tuple(_critical(delta, gamma)[1:])
        _swap(_L, "critical_x", _wrong)
    """,
    # the sample outlier through the Baik-Silverstein map of an identity bulk, l (1 + gamma / (l - 1)),
    # instead of the map of MP_delta, l (1 + gamma / x)
    "sample outlier by the identity-bulk map": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            ell = np.asarray(sp.population_eigenvalue, dtype=float) / kappa
            with np.errstate(divide="ignore", invalid="ignore"):
                moved = np.where(np.isfinite(sp.sample_eigenvalue),
                                 kappa * ell * (1.0 + gamma / (ell - 1.0)), np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=_out(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the resolvent route with its residue missing the factor 1 / zeta(m*)
    "resolvent residue without 1/zeta": """
        _R = attnlib.theory._routes
        _resolvent = _R.sample_spike_resolvent
        def _wrong(theta, delta, gamma, kappa=1.0):
            lam, ov = _resolvent(theta, delta, gamma, kappa)
            return lam, ov * lam / kappa if np.isfinite(lam) else ov
        _swap(_R, "sample_spike_resolvent", _wrong)
    """,
    # no trace of the spike at the edge: the edge-overlap ratio of a random direction, 1
    "edge overlap ratio 1": """
        _swap(attnlib.theory._routes, "edge_overlap_ratio", lambda theta, delta, gamma: 1.0)
    """,
    # the strength of the vocabulary-mean spike without the factor ||g||^2 -> delta
    "mean spike strength without delta": """
        _S = attnlib.theory._spikes
        _swap(_S, "mean_spike_strength", lambda weight_sum, kappa, delta: np.asarray(weight_sum, dtype=float)**2 / kappa)
    """,
}
