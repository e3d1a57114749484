"""Wrong formulas that the closing checks of book/04_sample_spike.md must reject (tests/test_swaps.py)."""

CHAPTER = "04_sample_spike"

# (indented like the patches below, so that textwrap.dedent aligns the two parts)
_SPIKE = """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _out(a):
            return a if np.ndim(a) else float(a)
"""

SWAPS = {
    # the sample outlier placed at the population outlier (sampling ignored)
    "sample outlier at population": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            moved = np.where(np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=_out(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the sample overlap with x^3 in the denominator instead of x^2 (x + gamma)
    "sample overlap over x^3": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                ov = np.where(sp.sample_overlap > 0, sp.sample_overlap * (x + gamma) / x, 0.0)
            return dataclasses.replace(sp, sample_overlap=_out(ov))
        _swap(_S, "spike", _wrong)
    """,
    # the threshold cubic without its constant term 2 gamma delta: x* = sqrt(delta + gamma + delta gamma)
    "sample threshold cubic without 2 gamma delta": """
        _L = attnlib.theory._law
        _critical = _L.critical_x
        def _wrong(delta, gamma):
            roots = _critical(delta, gamma)
            top = np.sqrt(np.asarray(delta) + np.asarray(gamma) + np.asarray(delta) * np.asarray(gamma))
            return (top if np.ndim(top) else float(top),) + tuple(roots[1:])
        _swap(_L, "critical_x", _wrong)
    """,
    # the overlap with mu taken equal to the overlap with h (no centroid factor ||mu||^2 / (||mu||^2 + delta))
    "overlap with mu without the centroid factor": """
        import dataclasses
        _S = attnlib.theory._spikes
        _signal = _S.signal
        def _wrong(delta, gamma, alpha, kappa, mu_norm2):
            sp = _signal(delta, gamma, alpha, kappa, mu_norm2)
            m = np.asarray(mu_norm2, dtype=float)
            f = np.where(m > 0, m / (m + delta), 1.0)
            return dataclasses.replace(sp, population_overlap=sp.population_overlap / f,
                                       sample_overlap=sp.sample_overlap / f)
        _swap(_S, "signal", _wrong)
    """,
}
