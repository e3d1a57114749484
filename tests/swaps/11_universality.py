"""Wrong formulas that the closing checks of book/11_universality.md must reject (tests/test_swaps.py)."""

CHAPTER = "11_universality"

SWAPS = {
    # the generalised law of the population only (the sample factor 1 + gamma psi left out)
    "one-stage generalised law": """
        import attnlib.theory.population
        _G = attnlib.theory.population
        _map = _G._map
        _swap(_G, "_map", lambda y, H, delta, gamma: _map(y, H, delta, 0.0))
    """,
    # the noise-side F without the normalisation by 1 + delta psi (the centroid noise as free signal)
    "anisotropic F not normalised": """
        import attnlib.theory.population
        _G = attnlib.theory.population
        _signal_function = _G.signal_function
        def _wrong(y, population, delta, mu_norm2=0.0, mu_weights=None):
            F, dF = _signal_function(y, population, delta, mu_norm2, mu_weights)
            if population.side == "tokens":
                return F, dF
            s, ds = population.psi(np.asarray(y, dtype=float)), population.psi(np.asarray(y, dtype=float), derivative=True)
            den = 1 + delta * s
            return F * den, dF * den + F * delta * ds
        _swap(_G, "signal_function", _wrong)
    """,
    # the Zipf spike with h independent of the noise: F = ||h||^2 G = (||mu||^2 + delta m_2) / (delta y)
    "Zipf centroid independent of the noise": """
        import attnlib.theory.population
        _G = attnlib.theory.population
        _signal_function = _G.signal_function
        def _wrong(y, population, delta, mu_norm2=0.0, mu_weights=None):
            if population.side != "tokens":
                return _signal_function(y, population, delta, mu_norm2, mu_weights)
            y = np.asarray(y, dtype=float)
            h2 = mu_norm2 + delta * population.moment(2)
            return h2 / (delta * y), -h2 / (delta * y**2)
        _swap(_G, "signal_function", _wrong)
    """,
    # the token-side map with delta and gamma exchanged
    "Zipf map with delta and gamma swapped": """
        import attnlib.theory.population
        _G = attnlib.theory.population
        _map = _G._map
        def _wrong(y, H, delta, gamma):
            if H.side == "tokens" and gamma > 0:
                return _map(y, H, gamma, delta)
            return _map(y, H, delta, gamma)
        _swap(_G, "_map", _wrong)
    """,
    # the sample overlap factor of the generalised spike left out (population overlap reported for S)
    "generalised overlap without the sample stage": """
        import dataclasses
        import attnlib.theory.population
        _G = attnlib.theory.population
        _signal = _G.signal
        def _wrong(*args, **kwargs):
            sp = _signal(*args, **kwargs)
            if np.isfinite(sp.sample_eigenvalue):
                return dataclasses.replace(sp, sample_overlap=sp.population_overlap)
            return sp
        _swap(_G, "signal", _wrong)
    """,
    # the threshold on ||mu||^2 with mu always on the largest atom, wherever it lies
    "anisotropic threshold ignoring where mu lies": """
        import attnlib.theory.population
        _G = attnlib.theory.population
        _critical = _G.critical_mu_norm2
        _swap(_G, "critical_mu_norm2", lambda snr, population, delta, gamma, *, mu_fractions=None: _critical(snr, population, delta, gamma))
    """,
    # the centroid shift with the vocabulary size instead of the effective vocabulary: d / V
    "Zipf centroid shift d over V": """
        _Fq = attnlib.model.frequencies
        _swap(_Fq, "centroid_shift", lambda d, frequencies, classes=2: float(d / (classes * len(frequencies))))
    """,
    # the between-class scatter from the Gram matrix of the means, without the 1/K
    "class scatter without 1/K": """
        _C = attnlib.model.k_classes
        _scatter = _C.scatter_eigenvalues
        _swap(_C, "scatter_eigenvalues", lambda means: np.asarray(means).shape[0] * _scatter(means))
    """,
    # the class spikes without the centroid noise: theta_j = (alpha/kappa) o_j
    "class spikes without delta": """
        _C = attnlib.model.k_classes
        def _wrong(means, delta, gamma, snr, kappa=1.0):
            return attnlib.theory.spike(snr * _C.scatter_eigenvalues(means), delta, gamma, kappa,
                                        direction="between-class")
        _swap(_C, "spikes", _wrong)
    """,
    # the K-class positional correlation taken as the probability that two labels agree
    "K-class correlation as agreement probability": """
        _C = attnlib.model.k_classes
        def _R(self):
            t = np.arange(self.T)
            lag = np.abs(t[:, None] - t[None, :])
            return 1.0 / self.K + (1 - 1.0 / self.K) * self.p ** lag
        _C.LabelChain.R = property(_R)
    """,
    # the Student-t noise not standardised to unit variance
    "Student-t noise of variance nu / (nu - 2)": """
        _N = attnlib.model.noise
        _fill = _N.NoiseLaw.fill
        def _wrong(self, out, rng):
            _fill(self, out, rng)
            if self.name == "student":
                out /= np.sqrt((self.parameter - 2.0) / self.parameter)
            return out
        _N.NoiseLaw.fill = _wrong
    """,
}
