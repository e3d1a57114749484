"""Wrong formulas that the closing checks of book/your_problem.md must reject (tests/test_swaps.py)."""

CHAPTER = "your_problem"

SWAPS = {
    # the thresholds in ||mu||^2 on the paper's strength rho = alpha ||mu||^2 / kappa (no class split delta)
    "your problem: signal thresholds without the class split": """
        _S = attnlib.theory._spikes
        _thresholds = _S.signal_thresholds
        def _wrong(delta, gamma, alpha, kappa, *, clip=True):
            mu2 = _thresholds(delta, gamma, alpha, kappa, clip=False)
            return tuple(float(np.asarray(m) + delta) for m in mu2)
        _swap(_S, "signal_thresholds", _wrong)
    """,
    # the overlap with mu taken equal to the overlap with h (no factor ||mu||^2 / (||mu||^2 + delta))
    "your problem: overlap with mu without the centroid factor": """
        import dataclasses
        _S = attnlib.theory._spikes
        _signal = _S.signal
        def _wrong(delta, gamma, alpha, kappa, mu_norm2):
            sp = _signal(delta, gamma, alpha, kappa, mu_norm2)
            m = np.asarray(mu_norm2, dtype=float)
            return dataclasses.replace(sp, sample_overlap=sp.sample_overlap * (m + delta) / m)
        _swap(_S, "signal", _wrong)
    """,
    # the outlier's variance from sampling alone, as if the vocabulary were fixed
    "your problem: outlier variance without the vocabulary": """
        import dataclasses
        _F = attnlib.theory.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            v = _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
            return dataclasses.replace(v, vocabulary_norm=0.0, vocabulary_direction=0.0)
        _swap(_F, "outlier_variance", _wrong)
    """,
    # the overlap's sd by the chain rule through the eigenvalue, as if one number x moved both
    "your problem: overlap sd through the eigenvalue": """
        import dataclasses
        import attnlib.theory.overlap_fluctuations
        _O = attnlib.theory.overlap_fluctuations
        _variance = _O.spike_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            v = _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
            lo, hi = (attnlib.theory.spike(theta + e, delta, gamma, kappa) for e in (-1e-6, 1e-6))
            slope = (hi.sample_overlap - lo.sample_overlap) / (hi.sample_eigenvalue - lo.sample_eigenvalue)
            return dataclasses.replace(v, overlap_h=slope**2 * v.eigenvalue)
        _swap(_O, "spike_variance", _wrong)
    """,
}
