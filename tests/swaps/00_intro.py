"""Wrong formulas that the closing checks of book/intro.md (the lead figure) must reject (tests/test_swaps.py)."""

CHAPTER = "intro"

SWAPS = {
    # the paper's rho = alpha ||mu||^2 / kappa for the spike strength theta = alpha (||mu||^2 + delta) / kappa
    "intro: spike strength rho for theta": """
        _S = attnlib.theory._spikes
        def _wrong(alpha, kappa, mu_norm2, delta):
            return _S.summary_snr(alpha, kappa, mu_norm2)
        _swap(_S, "spike_strength", _wrong)
    """,
    # the overlap with mu taken equal to the overlap with h (no centroid factor ||mu||^2 / (||mu||^2 + delta))
    "intro: overlap with mu without the centroid factor": """
        import dataclasses
        _S = attnlib.theory._spikes
        _signal = _S.signal
        def _wrong(delta, gamma, alpha, kappa, mu_norm2):
            sp = _signal(delta, gamma, alpha, kappa, mu_norm2)
            m = np.asarray(mu_norm2, dtype=float)
            f = np.where(m > 0, m / (m + delta), 1.0)
            return dataclasses.replace(sp, sample_overlap=sp.sample_overlap / f)
        _swap(_S, "signal", _wrong)
    """,
}
