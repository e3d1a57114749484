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
    # an eigenvector at the bulk edge as a random direction, r(theta) = 1, forgetting that a spike below the
    # threshold tilts the edge eigenvectors towards h: the below-threshold bound 2 r(theta)/d is then too low
    "intro: edge overlap of a random direction": """
        _swap(attnlib.theory._routes, "edge_overlap_ratio", lambda theta, delta, gamma: 1.0)
    """,
    # the critical window centred on the population threshold sqrt(delta) instead of the sample threshold x*
    "intro: critical window around the population threshold": """
        _F = attnlib.theory.fluctuations
        def _wrong(theta, delta, gamma, d):
            t = (np.asarray(theta, dtype=float) - delta - np.sqrt(delta)) / _F.window_width(delta, gamma, d)
            return float(t) if t.ndim == 0 else t
        _swap(_F, "window_position", _wrong)
    """,
    # the label's signal-to-noise ratio ranked by alpha/kappa (varsigma^2 = M alpha/kappa for every weighting)
    "intro: label snr as M alpha/kappa": """
        _D = attnlib.studies.downstream
        def _wrong(setting, position=None):
            return float((setting.mu_norm2 + setting.delta) / (1 - setting.delta) * setting.snr)
        _swap(_D, "label_snr", _wrong)
    """,
}
