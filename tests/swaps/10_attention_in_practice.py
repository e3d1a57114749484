"""Wrong formulas that the closing checks of book/10_attention_in_practice.md must reject (tests/test_swaps.py)."""

CHAPTER = "10_attention_in_practice"

SWAPS = {
    # the bounded-score constant of one maximiser (the first found) instead of the smallest over all of them
    "bounded-score constant of the first maximiser": """
        _L = attnlib.studies.learning
        def _wrong(R):
            return _L.shortfall_constant(R, attnlib.model.weights.optimal_nonnegative(R)[0])
        _swap(_L, "bounded_gap", _wrong)
    """,
    # the optimiser started near one maximiser only (the branch of weights.optimal_nonnegative)
    "bounded optimiser on one branch": """
        from scipy.optimize import minimize
        from scipy.special import softmax
        _L = attnlib.studies.learning
        def _wrong(R, B, *, random_starts=0, seed=0):
            R = np.asarray(R, dtype=float)
            w_plus = attnlib.model.weights.optimal_nonnegative(R)[0]
            best = None
            for b0 in (np.full(len(R), B / 2), B * (w_plus > 0), B * w_plus / w_plus.max()):
                res = minimize(_L._snr_and_gradient, b0.astype(float), args=(R,), jac=True, method="L-BFGS-B",
                               bounds=[(0.0, B)] * len(R), options={"gtol": 1e-14, "ftol": 1e-16})
                best = res if best is None or res.fun < best.fun else best
            return softmax(best.x), float(-best.fun)
        _swap(_L, "bounded_optimum", _wrong)
    """,
    # lambda_+ taken as unique: only the maximiser of weights.optimal_nonnegative
    "one maximiser of lambda_plus": """
        _L = attnlib.studies.learning
        _swap(_L, "nonnegative_maximisers", lambda R, **kw: [attnlib.model.weights.optimal_nonnegative(R)[0]])
    """,
    # the best non-negative weights as the positive part of the signed top eigenvector
    "clipped top eigenvector for lambda_plus (practice)": """
        _W = attnlib.model.weights
        def _wrong(R, *, max_T=20, tol=1e-10):
            R = np.asarray(R, dtype=float)
            w = np.clip(_W.optimal(R, normalize="norm"), 0.0, None)
            w = w / w.sum()
            return w, float(w @ R @ w / (w @ w))
        _swap(_W, "optimal_nonnegative", _wrong)
    """,
    # the tilt of the sqrt(d) layer at leading order only, exp(-tau sqrt(d)) without exp(3 tau^2 / 2)
    "leading-order tilt": """
        _swap(attnlib.studies.real_layer, "score_tilt", lambda tau, d: float(np.exp(-tau * np.sqrt(d))))
    """,
    # the random rows of the tau < 0 layer keep their self key
    "random rows with the self key": """
        _Y = attnlib.studies.real_layer
        _moments = _Y.random_row_moments
        _swap(_Y, "random_row_moments", lambda T, sigma, *, self_key=True: _moments(T, sigma, self_key=True))
    """,
    # the softmax of Gaussian scores treated as uniform: E[a_1^2] = 1/k^2
    "uniform softmax rows": """
        _swap(attnlib.studies.real_layer, "softmax_row_second_moment", lambda k, sigma, *, nodes=96: 1.0 / k**2)
    """,
    # a repeated pair at the rate of independent signs, ignoring R: T(T-1)/(2V)
    "repeated pairs without R": """
        _swap(attnlib.studies.causal_attention, "repeated_pairs", lambda R, V: float(len(R) * (len(R) - 1) / 2 / V))
    """,
    # N T^2 / V repeating sequences (the pairs counted twice)
    "repeated pairs counted twice": """
        _A = attnlib.studies.causal_attention
        _pairs = _A.repeated_pairs
        _swap(_A, "repeated_pairs", lambda R, V: 2 * _pairs(R, V))
    """,
    # the weights' deviation from the limit without the repeated-token term
    "weight deviation without repeats": """
        _A = attnlib.studies.causal_attention
        _second = _A.deviation_second_moment
        def _wrong(T, tau, d, *, V=None, R=None, strict=False):
            return _second(T, tau, d, strict=strict)
        _swap(_A, "deviation_second_moment", _wrong)
    """,
    # the limit weights of the layer without the self score (the harmonic weights whatever tau)
    "limit weights without tau": """
        _W = attnlib.model.weights
        _causal = _W.causal
        _swap(_W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, 0.0, strict=strict))
    """,
    # the Fisher ceiling Phi(varsigma^2) instead of Phi(varsigma)
    "Fisher accuracy of varsigma squared": """
        from scipy.special import ndtr
        _D = attnlib.studies.downstream
        _swap(_D, "fisher_accuracy", lambda setting, position=None: float(ndtr(_D.label_snr(setting, position))))
    """,
    # the label's Fisher separation replaced by the spike strength alpha/kappa (the alpha/kappa optimum as target)
    "label separation as alpha over kappa": """
        _D = attnlib.studies.downstream
        def _wrong(setting, position=None):
            M = (setting.mu_norm2 + setting.delta) / (1 - setting.delta)
            return float(setting.alpha / setting.kappa * M)
        _swap(_D, "label_snr", _wrong)
    """,
    # the layer's sample outlier placed at the population outlier
    "layer outlier at the population outlier": """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            moved = np.where(np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=moved if np.ndim(moved) else float(moved))
        _swap(_S, "spike", _wrong)
    """,
    # scores over d whatever the scaling asked for
    "sqrt-d layer scored over d": """
        _Y = attnlib.studies.real_layer
        _pool = _Y.pooling_weights
        _swap(_Y, "pooling_weights", lambda X, tau, *, scaling="d", projections=None: _pool(X, tau, projections=projections))
    """,
}
