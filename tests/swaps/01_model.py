"""Wrong formulas that the closing checks of book/01_model.md must reject (tests/test_swaps.py)."""

CHAPTER = "01_model"

SWAPS = {
    # the spike along mu instead of the class centroid h = mu + Zs/V (the q term dropped from the signal)
    "covariance with mu for h": """
        _orig_cov = attnlib.model.generative.population_covariance

        def _cov_mu(vocab, w, R, *, centered=True, parts=False):
            out = _orig_cov(vocab, w, R, centered=centered, parts=True)
            h, mu = out["h"], vocab.mu
            total = out["total"] - out["alpha"] * (np.outer(h, h) - np.outer(mu, mu))
            return dict(out, total=total, h=mu) if parts else total

        _swap(attnlib.model.generative, "population_covariance", _cov_mu)
    """,
    # the centroid shift q left in the noise: kappa (W' + q q^T) + alpha mu mu^T
    "covariance with q in the noise": """
        _orig_cov = attnlib.model.generative.population_covariance

        def _cov_q_noise(vocab, w, R, *, centered=True, parts=False):
            out = _orig_cov(vocab, w, R, centered=centered, parts=True)
            h, mu, q = out["h"], vocab.mu, out["h"] - vocab.mu
            total = (out["total"] + out["kappa"] * np.outer(q, q)
                     - out["alpha"] * (np.outer(h, h) - np.outer(mu, mu)))
            return dict(out, total=total) if parts else total

        _swap(attnlib.model.generative, "population_covariance", _cov_q_noise)
    """,
    # alpha and kappa exchanged: alpha W' + kappa h h^T
    "covariance with alpha and kappa exchanged": """
        _orig_cov = attnlib.model.generative.population_covariance

        def _cov_swapped(vocab, w, R, *, centered=True, parts=False):
            out = _orig_cov(vocab, w, R, centered=centered, parts=True)
            a, k, h = out["alpha"], out["kappa"], out["h"]
            total = out["total"] + (a - k) * out["W_prime"] + (k - a) * np.outer(h, h)
            return dict(out, total=total) if parts else total

        _swap(attnlib.model.generative, "population_covariance", _cov_swapped)
    """,
    # the uncentred second moment without the mean term (sum w)^2 g g^T
    "uncentred covariance without the mean term": """
        _orig_cov = attnlib.model.generative.population_covariance

        def _cov_no_mean(vocab, w, R, *, centered=True, parts=False):
            return _orig_cov(vocab, w, R, centered=True, parts=parts)

        _swap(attnlib.model.generative, "population_covariance", _cov_no_mean)
    """,
    # the mean spike's strength with sum w instead of (sum w)^2 (equal when the weights sum to one)
    "mean spike with sum w": """
        _swap(attnlib.theory._spikes, "mean_spike_strength",
              lambda weight_sum, kappa, delta: weight_sum * delta / kappa)
    """,
    # the paper's rho for the spike strength: h = mu, no vocabulary term
    "spike strength without delta": """
        _swap(attnlib.theory._spikes, "spike_strength",
              lambda alpha, kappa, mu_norm2, delta: alpha * mu_norm2 / kappa)
    """,
    # Gaussian signs: R = Gamma instead of (2/pi) arcsin Gamma
    "Gaussian signs without arcsin": """
        import attnlib.model.positional as _pos

        def _gaussian_no_arcsin(Gamma):
            proc = _orig_gauss(Gamma)
            return _pos.SignProcess(proc.name, np.asarray(Gamma, dtype=float), proc._sampler)

        _orig_gauss = _swap(_pos, "gaussian_signs", _gaussian_no_arcsin)
    """,
    # a Markov chain that keeps its sign with probability r instead of (1 + r)/2
    "Markov chain keeping its sign with probability r": """
        import attnlib.model.positional as _pos

        def _markov_keep_r(n, rng, *, T, r):
            first = _pos._rademacher(rng, (n, 1))
            flips = np.where(rng.random((n, T - 1)) < r, 1, -1).astype(np.int8)
            steps = np.concatenate([np.ones((n, 1), np.int8), flips], axis=1)
            return (first * np.cumprod(steps, axis=1)).astype(np.int8)

        _swap(_pos, "_sample_markov", _markov_keep_r)
    """,
    # kappa = (sum w)^2, which is 1 for every attention distribution: recovery would depend on alpha alone
    # (chapter 05 stops on a ValueError with it, kappa = 0 for weights summing to 0; the model chapter's
    # checks of alpha and kappa reject it)
    "kappa as the squared sum": """
        _W = attnlib.model.weights
        _swap(_W, "kappa", lambda w: float(np.sum(np.asarray(w, dtype=float)) ** 2))
        attnlib.model.setting.Setting.kappa = property(lambda self: float(self.weights.sum() ** 2))
    """,
    # the classical spiked-covariance outlier (1 + theta)(1 + delta/theta), forgetting the shift x = theta - delta:
    # the spikes fed with this vocabulary's own ||h||^2 and ||g||^2 must reject it
    "model: population outlier without the shift": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike

        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            th = np.asarray(sp.theta, dtype=float)
            moved = np.where(np.isfinite(sp.population_eigenvalue),
                             kappa * (th + 1.0) * (th + delta) / np.where(th > 0, th, 1.0), np.nan)
            return dataclasses.replace(sp, population_eigenvalue=moved if np.ndim(moved) else float(moved))

        _swap(_S, "spike", _wrong)
    """,
}
