"""Wrong formulas that the closing checks of book/09_finite_size.md must reject (tests/test_swaps.py)."""

CHAPTER = "09_finite_size"

SWAPS = {
    # the outlier's sampling variance as if the pooled sign were Gaussian (kurt(w^T xi) = 3)
    "Gaussian outlier fluctuations": """
        _F = attnlib.theory.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            return _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=3.0)
        _swap(_F, "outlier_variance", _wrong)
    """,
    # the kurtosis term with kurt - 1 (the excess over a constant sign) instead of kurt - 3
    "outlier kurtosis term with kurt - 1": """
        _F = attnlib.theory.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            return _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4 + 2.0)
        _swap(_F, "outlier_variance", _wrong)
    """,
    # the Gaussian sampling term without the population-to-sample slope psi' (2 l^2 / N, Paul's white case)
    "outlier sampling variance without psi prime": """
        import dataclasses
        _F = attnlib.theory.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            v = _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
            x = theta - delta
            ell = kappa * (x + 1.0) * (x + delta) / x
            return dataclasses.replace(v, sampling_gaussian=2.0 * ell**2 * gamma / d)
        _swap(_F, "outlier_variance", _wrong)
    """,
    # the vocabulary variance without the direction term 2 delta / (x^2 - delta)
    "outlier vocabulary variance without the direction": """
        import dataclasses
        _F = attnlib.theory.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            v = _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
            return dataclasses.replace(v, vocabulary_direction=0.0)
        _swap(_F, "outlier_variance", _wrong)
    """,
    # the kurtosis of the pooled sign as if the signs were independent: 3 - 2 sum w^4 / kappa^2
    "pooled-sign kurtosis of independent signs": """
        _F = attnlib.theory.fluctuations
        def _wrong(w, xi):
            w = np.asarray(w, dtype=float)
            return float(3.0 - 2.0 * np.sum(w**4) / np.sum(w**2) ** 2)
        _swap(_F, "fourth_moment_ratio", _wrong)
    """,
    # the Tracy-Widom scale with kappa left out of the square root of the edge constant
    "edge constant without kappa": """
        _F = attnlib.theory.fluctuations
        def _wrong(delta, gamma, kappa=1.0):
            x = attnlib.theory.critical_x(delta, gamma)[0]
            upper = float(attnlib.theory.outlier_map(x, delta, gamma, kappa))
            s2, s3 = delta + gamma + delta * gamma, delta * gamma
            return float(1.0 / (upper * np.sqrt(s2 * x + 3.0 * s3)))
        _swap(_F, "edge_constant", _wrong)
    """,
    # the edge fluctuations on the CLT scale (c d)^(-1/2) instead of (c d)^(-2/3)
    "edge scale d^(-1/2)": """
        _F = attnlib.theory.fluctuations
        _swap(_F, "edge_scale", lambda delta, gamma, kappa, d: float((_F.edge_constant(delta, gamma, kappa) * d) ** -0.5))
    """,
    # the Tracy-Widom law of complex matrices (beta = 2) for the real one
    "Tracy-Widom beta = 2": """
        _TW = attnlib.theory.tracy_widom
        _cdf, _pdf, _moments = _TW.cdf, _TW.pdf, _TW.moments
        _m2 = _moments(2)
        _TW.MEAN, _TW.VARIANCE, _TW.SD = _m2.mean, _m2.variance, _m2.sd
        _swap(_TW, "cdf", lambda s, beta=1: _cdf(s, 2))
        _swap(_TW, "pdf", lambda s, beta=1: _pdf(s, 2))
        _swap(_TW, "moments", lambda beta=1: _m2)
    """,
    # the edge evaluated at N and V, with no degree of freedom lost to the centring
    "finite-size edge without the centring": """
        _B = attnlib.engine.compare
        _swap(_B, "finite_size_parameters", lambda setting: (setting.delta, setting.gamma, setting.kappa))
    """,
    # the critical window at the CLT width d^(-1/2)
    "CLT-width critical window": """
        _F = attnlib.theory.fluctuations
        _width = _F.window_width
        _swap(_F, "window_width", lambda delta, gamma, d: _width(delta, gamma, 1) * d ** -0.5)
    """,
    # the window width without the factor 2: sqrt(l / z''(x*)) (the outlier at l t^2 / 2 above the edge)
    "critical window without the factor 2": """
        _F = attnlib.theory.fluctuations
        _width = _F.window_width
        _swap(_F, "window_width", lambda delta, gamma, d: _width(delta, gamma, d) / np.sqrt(2.0))
    """,
    # the slope of the population overlap at the sample threshold for that of the sample overlap
    "overlap slope of the population overlap": """
        _FS = attnlib.studies.finite_size
        def _wrong(delta, gamma):
            x = attnlib.theory.critical_x(delta, gamma)[0]
            h = 1e-7 * (1.0 + x)
            sp = attnlib.theory.spike(delta + x + h, delta, gamma)
            sp0 = attnlib.theory.spike(delta + x, delta, gamma)
            return float((sp.population_overlap - sp0.population_overlap) / h)
        _swap(_FS, "overlap_slope", _wrong)
    """,
    # the overlap envelope set loosely, twice the measured values
    "loose overlap envelope": """
        attnlib.studies.finite_size.OVERLAP_PEAK = 1.2
        attnlib.studies.finite_size.OVERLAP_TAIL = 1.4
    """,
    # the edge given the tokens as if the tokens did not move it: the limit edge for every draw
    "edge given the tokens = limit edge": """
        _TM = attnlib.studies.token_mixing
        def _wrong(d, V, N, w, rng, draws=1):
            return np.full(draws, attnlib.theory.bulk_edges(d / V, d / N)[1])
        _swap(_TM, "token_edges", _wrong)
    """,
}
