"""Wrong formulas that the closing checks of book/08_explore.md must reject (tests/test_swaps.py).

The chapter's checks compare the spectrum explorer's predictions (the signal outlier, the bulk edge) with
8 simulated draws at d = 400, and the weights explorer's optimum with lambda_max(R).
"""

CHAPTER = "08_explore"

SWAPS = {
    # the paper's stated strength rho = alpha ||mu||^2 / kappa as the spike strength (the outlier moves from 0.421
    # to 0.318, 14 standard errors of the 8 draws away)
    "explore: the paper's rho as the spike strength": """
        _S = attnlib.theory._spikes
        _swap(_S, "spike_strength", lambda alpha, kappa, mu_norm2, delta: _S.summary_snr(alpha, kappa, mu_norm2))
    """,
    # the one-stage outlier: the population outlier kappa (x+1)(x+delta)/x taken for the sample one (0.400
    # instead of 0.421), forgetting the factor (x+gamma)/x of the N samples
    "explore: sample outlier at the population outlier": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                moved = np.where(np.isfinite(sp.sample_eigenvalue), kappa * (x + 1.0) * (x + delta) / x, np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=moved if np.ndim(moved) else float(moved))
        _swap(_S, "spike", _wrong)
    """,
    # the bulk of S read as the Marchenko-Pastur law of the vocabulary alone (edge kappa (1+sqrt(delta))^2,
    # the population bulk), forgetting the sampling of N sequences
    "explore: the bulk edge of MP_delta alone": """
        _L = attnlib.theory._law
        _mp_edges = _L.mp_edges
        _swap(_L, "bulk_edges", lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa))
    """,
}
