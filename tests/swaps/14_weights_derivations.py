"""Wrong formulas that the closing checks of book/14_weights_derivations.md must reject (tests/test_swaps.py)."""

CHAPTER = "14_weights_derivations"

SWAPS = {
    # Gaussian signs with the arcsine law linearised: R_ts = (2/pi) Sigma_ts off the diagonal
    "gaussian signs with a linear arcsine": """
        _P = attnlib.model.positional
        def _wrong(Sigma):
            right = _gaussian(Sigma)
            S = np.array(Sigma, dtype=float)
            eye = np.eye(S.shape[0])
            return _P.SignProcess(right.name, eye + 2 / np.pi * (S - eye), right._sampler)
        _gaussian = _swap(_P, "gaussian_signs", _wrong)
    """,
    # the Markov sampler keeps the previous sign with probability r, not (1 + r)/2
    "markov sampler keeping with probability r": """
        _P = attnlib.model.positional
        def _wrong(n, rng, *, T, r):
            first = _P._rademacher(rng, (n, 1))
            flips = np.where(rng.random((n, T - 1)) < r, 1, -1).astype(np.int8)
            steps = np.concatenate([np.ones((n, 1), np.int8), flips], axis=1)
            return (first * np.cumprod(steps, axis=1)).astype(np.int8)
        _swap(_P, "_sample_markov", _wrong)
    """,
    # the fluctuations of the causal weights with the score variances of order 1/sqrt(d): a 1/d^(1/4) rate
    "causal fluctuations at rate d^(-1/4)": """
        _A = attnlib.studies.causal_attention
        _second = _A.deviation_second_moment
        def _wrong(T, tau, d, *, V=None, R=None, strict=False):
            return _second(T, tau, d, V=V, R=R, strict=strict) * np.sqrt(d)
        _swap(_A, "deviation_second_moment", _wrong)
    """,
    # the O(1/d) mean of the weights left out: the finite-d average compared with the bare limit
    "no finite-d bias of the weights": """
        _A = attnlib.studies.causal_attention
        _swap(_A, "deviation_mean", lambda T, tau, d, *, mu_norm2=0.0, R=None, strict=False: np.zeros(T))
    """,
    # the self score with the variance 1/d of the others (||x_t||^2/d has variance 2/d)
    "self-score variance 1/d": """
        _A = attnlib.studies.causal_attention
        def _wrong(T, tau, d, *, V=None, R=None, strict=False):
            M = np.zeros((T, T))
            for t, keys, p, self_idx in _A._rows(T, tau, strict):
                J = np.diag(p) - np.outer(p, p)
                M[np.ix_(keys, keys)] += tau**2 * (J / d) @ J
            return M / len(_A._rows(T, tau, strict)) ** 2
        _swap(_A, "deviation_second_moment", _wrong)
    """,
    # the one-token population with lambda = V/N instead of N/V (delta and gamma swapped)
    "one-token counts with lambda = gamma/delta": """
        _C = attnlib.theory.single_token
        _count = _C.count_population
        _swap(_C, "count_population", lambda delta, gamma, tail=_C.TAIL: _count(gamma, delta, tail))
    """,
    # the token counts replaced by their mean (D = I): the first token's bulk taken as MP_delta
    "one-token counts without fluctuations": """
        _C = attnlib.theory.single_token
        _swap(_C, "count_population", lambda delta, gamma, tail=_C.TAIL: (np.ones(1), np.ones(1)))
    """,
    # the anchors' chance of picking the wrong sign left out of the spectral prediction
    "spectral prediction without the sign error": """
        _D = attnlib.studies.downstream
        _spectral = _D.spectral_accuracy
        _swap(_D, "spectral_accuracy", lambda setting, position=None, n_anchor=None, h_norm2=None:
              _spectral(setting, position, None, h_norm2))
    """,
}
