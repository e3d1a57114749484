"""Wrong formulas that the closing checks of book/03_population_spike.md must reject (tests/test_swaps.py)."""

CHAPTER = "03_population_spike"

SWAPS = {
    "rho for theta": """
        _S = attnlib.theory._spikes
        _swap(_S, "spike_strength", lambda alpha, kappa, mu_norm2, delta: _S.summary_snr(alpha, kappa, mu_norm2))
    """,
}
