"""Wrong formulas that the closing checks of book/03_population_spike.md must reject (tests/test_swaps.py)."""

CHAPTER = "03_population_spike"

# Each patch wraps attnlib.theory._spikes.spike (or another formula) and plants one plausible mistake in the
# population outlier, its overlaps or its threshold. The chapter's population sweeps must reject each.
# (indented like the patches below, so that textwrap.dedent aligns the two parts)
_SPIKE = """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _out(a):
            return a if np.ndim(a) else float(a)
"""

SWAPS = {
    # the paper's stated strength rho = alpha ||mu||^2 / kappa in place of theta = alpha (||mu||^2 + delta) / kappa
    "rho for theta": """
        _S = attnlib.theory._spikes
        _swap(_S, "spike_strength", lambda alpha, kappa, mu_norm2, delta: _S.summary_snr(alpha, kappa, mu_norm2))
    """,
    # the classical spiked-covariance outlier (1 + theta)(1 + delta/theta), forgetting the shift x = theta - delta
    "population outlier without the shift": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            th = np.asarray(sp.theta, dtype=float)
            moved = np.where(np.isfinite(sp.population_eigenvalue),
                             kappa * (th + 1.0) * (th + delta) / np.where(th > 0, th, 1.0), np.nan)
            return dataclasses.replace(sp, population_eigenvalue=_out(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the population overlap with the wrong power, 1 - delta/x instead of 1 - delta/x^2
    "population overlap 1 - delta/x": _SPIKE + """
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                ov = np.where(sp.population_overlap > 0, 1.0 - delta / x, 0.0)
            return dataclasses.replace(sp, population_overlap=_out(ov))
        _swap(_S, "spike", _wrong)
    """,
    # the population threshold of the rectangular model in units of ||mu||^2 (x > sqrt(delta) read as
    # theta > sqrt(delta)), so that spikes between sqrt(delta) and delta + sqrt(delta) get an outlier
    "population threshold sqrt(delta)": """
        _S = attnlib.theory._spikes
        _thresholds = _S.thresholds
        _swap(_S, "thresholds", lambda delta, gamma: (np.sqrt(delta) if np.ndim(delta) else
                                                     float(np.sqrt(delta)), _thresholds(delta, gamma)[1]))
    """,
    # the centroid factor ||mu||^2 / (||mu||^2 + delta) applied twice (squared) to the overlap with mu
    "overlap with mu, centroid factor squared": """
        import dataclasses
        _S = attnlib.theory._spikes
        _signal = _S.signal
        def _wrong(delta, gamma, alpha, kappa, mu_norm2):
            sp = _signal(delta, gamma, alpha, kappa, mu_norm2)
            m = np.asarray(mu_norm2, dtype=float)
            f = np.where(m > 0, m / (m + delta), 0.0)
            return dataclasses.replace(sp, population_overlap=sp.population_overlap * f,
                                       sample_overlap=sp.sample_overlap * f)
        _swap(_S, "signal", _wrong)
    """,
}
