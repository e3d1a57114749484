"""Wrong formulas that the closing checks of book/primer.md (the random-matrix primer) must reject
(tests/test_swaps.py)."""

CHAPTER = "primer"

SWAPS = {
    # the Marchenko-Pastur edges with delta where sqrt(delta) belongs: (1 -+ delta)^2
    "primer: MP edges (1 -+ delta)^2": """
        _L = attnlib.theory._law
        def _wrong(ratio, scale=1.0):
            r = np.asarray(ratio, dtype=float)
            lo, hi = scale * (1.0 - r) ** 2, scale * (1.0 + r) ** 2
            return (lo, hi) if np.ndim(lo) else (float(lo), float(hi))
        _swap(_L, "mp_edges", _wrong)
    """,
    # the Marchenko-Pastur density without its 1/lambda: sqrt((b - x)(x - a)) / (2 pi ratio scale)
    "primer: MP density without the 1/lambda": """
        _L = attnlib.theory._law
        _density = _L.mp_density
        def _wrong(x, ratio, scale=1.0):
            return _density(x, ratio, scale) * np.asarray(x, dtype=float) / scale
        _swap(_L, "mp_density", _wrong)
    """,
    # the other root of the quadratic delta zeta G^2 - (zeta + delta - 1) G + 1 = 0 (the wrong branch of the
    # square root): it tends to 1/delta instead of vanishing like 1/zeta, and its imaginary part has the wrong sign
    "primer: Stieltjes transform, the other root": """
        import attnlib.theory._routes as _R
        _stieltjes = _R.mp_stieltjes_complex
        def _wrong(zeta, ratio):
            z = np.asarray(zeta, dtype=complex)
            G = _stieltjes(zeta, ratio)
            return 1.0 / (ratio * z * G)  # the product of the two roots is 1/(ratio zeta)
        _swap(_R, "mp_stieltjes_complex", _wrong)
    """,
    # the moment-matched Marchenko-Pastur law MP_(delta + gamma) for the free product (same mean and variance)
    "primer: MP_(delta+gamma) for MP_delta ⊠ MP_gamma": """
        _L = attnlib.theory._law
        _mp_density = _L.mp_density
        _swap(_L, "bulk_density",
              lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta + gamma, kappa))
    """,
    # the population outlier in theta without the shift x = theta - delta: (theta + 1)(theta + delta)/theta
    "primer: population outlier (theta+1)(theta+delta)/theta": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            th = np.asarray(sp.theta, dtype=float)
            moved = np.where(np.isfinite(sp.population_eigenvalue),
                             kappa * (th + 1.0) * (th + delta) / np.where(th > 0, th, 1.0), np.nan)
            return dataclasses.replace(sp, population_eigenvalue=moved if np.ndim(moved) else float(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the population overlap 1 - delta/x (wrong power of x)
    "primer: population overlap 1 - delta/x": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                ov = np.where(sp.population_overlap > 0, 1.0 - delta / x, 0.0)
            return dataclasses.replace(sp, population_overlap=ov if np.ndim(ov) else float(ov))
        _swap(_S, "spike", _wrong)
    """,
}
