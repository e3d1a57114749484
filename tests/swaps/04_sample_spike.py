"""Wrong formulas that the closing checks of book/04_sample_spike.md must reject (tests/test_swaps.py)."""

CHAPTER = "04_sample_spike"

SWAPS = {
    "sample outlier at population": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            moved = np.where(np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=moved if np.ndim(moved) else float(moved))
        _swap(_S, "spike", _wrong)
    """,
    "one-stage overlap": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(x > np.sqrt(delta), 1.0 - delta / x**2, 1.0)
                one_stage = np.where(sp.sample_overlap > 0, np.minimum(sp.sample_overlap / factor, 1.0), 0.0)
            return dataclasses.replace(sp, sample_overlap=one_stage if np.ndim(one_stage) else float(one_stage))
        _swap(_S, "spike", _wrong)
    """,
}
