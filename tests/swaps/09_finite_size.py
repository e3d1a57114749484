"""Wrong formulas that the closing checks of book/09_finite_size.md must reject (tests/test_swaps.py)."""

CHAPTER = "09_finite_size"

SWAPS = {
    "Gaussian outlier fluctuations": """
        _F = attnlib.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            return _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=3.0)
        _swap(_F, "outlier_variance", _wrong)
    """,
    "CLT-width critical window": """
        _F = attnlib.fluctuations
        _width = _F.window_width
        _swap(_F, "window_width", lambda delta, gamma, d: _width(delta, gamma, 1) * d ** -0.5)
    """,
}
