"""Wrong formulas that the closing checks of book/15_heads_and_layers.md must reject (tests/test_swaps.py)."""

CHAPTER = "15_heads_and_layers"

SWAPS = {
    # the heads treated as orthonormal in the covariance: (tr B / H) I ⊗ W' for B ⊗ W'
    "heads covariance with orthonormal noise": """
        import attnlib.model.heads
        _M = attnlib.model.heads
        def _wrong(vocab, R, W, *, centered=True):
            W = np.asarray(W, dtype=float)
            A, B = W.T @ R @ W, W.T @ W
            parts = attnlib.model.generative.population_covariance(vocab, W[:, 0], R, parts=True)
            h, H = parts["h"], B.shape[0]
            return np.kron(A, np.outer(h, h)) + np.trace(B) / H * np.kron(np.eye(H), parts["W_prime"])
        _swap(_M, "population_covariance", _wrong)
    """,
    # the sample map with gamma, not H gamma: the H heads' dimension dH forgotten
    "sample map without the heads' dimension": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        _z = _H._z
        _swap(_H, "_z", lambda y, b, delta, gamma, derivative: _z(y, b, delta, gamma / b.size, derivative))
    """,
    # the population overlap of one head at the top pencil eigenvalue, whatever the scales of the heads
    "one-head overlap for every spike": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        def _wrong(ell, A, B, delta, k):
            b = _H.noise_scales(B)[-1]  # the one-head outlier ell / b = (x + 1)(x + delta) / x, solved for x
            x = 0.5 * (ell / b - 1 - delta + np.sqrt((ell / b - 1 - delta) ** 2 - 4 * delta))
            return float(max(0.0, 1.0 - delta / x**2))
        _swap(_H, "_overlap", _wrong)
    """,
    # the bulk's second moment without the sampling term gamma (tr B)^2 / H
    "bulk second moment without sampling": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        def _wrong(B, delta, gamma):
            B = np.asarray(B, dtype=float)
            H = B.shape[0]
            return float(np.trace(B) / H), float((1.0 + delta) * np.trace(B @ B) / H)
        _swap(_H, "bulk_moments", _wrong)
    """,
    # the bulk density of the dH coordinates without the 1/H of the mixed law
    "bulk density without the 1/H": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        _density = _H.bulk_density
        _swap(_H, "bulk_density", lambda x, B, delta, gamma: np.asarray(B).shape[0] * _density(x, B, delta, gamma))
    """,
    # the pencil as the eigenvalues of A = W'RW alone (the heads taken as orthonormal)
    "pencil without the heads' norms": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        def _wrong(R, W):
            W = _H.check_heads(W, np.shape(R)[0])
            return np.linalg.eigvalsh(W.T @ np.asarray(R) @ W)[::-1]
        _swap(_H, "pencil", _wrong)
    """,
    # both thresholds read at the population edge (the sample's critical point forgotten)
    "sample threshold at the population edge": """
        import attnlib.theory.heads
        _H = attnlib.theory.heads
        _thr = _H.signal_thresholds
        def _wrong(R, W, delta, gamma):
            pop, _ = _thr(R, W, delta, gamma)
            return pop, pop
        _swap(_H, "signal_thresholds", _wrong)
    """,
    # every layer scored as the first: softmax of tau I, the outputs' Gram matrix forgotten
    "second layer scored like the first": """
        import attnlib.theory.layers
        _L = attnlib.theory.layers
        def _wrong(T, taus, *, residual=False):
            taus = np.atleast_1d(np.asarray(taus, dtype=float))
            return [_L.causal_softmax(tau * np.eye(T)) for tau in taus]
        _swap(_L, "stack", _wrong)
    """,
    # the read-out Q 1 / T for Q' 1 / T (rows for columns: mean pooling)
    "stacked read-out without the transpose": """
        import attnlib.theory.layers
        _L = attnlib.theory.layers
        def _wrong(T, taus, *, residual=False):
            Q = np.eye(T)
            for P in _L.stack(T, taus, residual=residual):
                Q = (P + np.eye(T)) @ Q if residual else P @ Q
            return Q.sum(axis=1) / T
        _swap(_L, "stacked_weights", _wrong)
    """,
}
