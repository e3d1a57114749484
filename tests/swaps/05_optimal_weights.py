"""Wrong formulas that the closing checks of book/05_optimal_weights.md must reject (tests/test_swaps.py)."""

CHAPTER = "05_optimal_weights"

SWAPS = {
    # Theorem 5 without the eigenvector: mean pooling called optimal
    "mean weights for the optimum": """
        _W = attnlib.model.weights
        def _wrong(R, *, normalize="sum", tol=1e-10):
            w = _W.mean(np.asarray(R).shape[0])
            return w / np.linalg.norm(w) if normalize == "norm" else w
        _swap(_W, "optimal", _wrong)
    """,
    # the top eigenvector of the entrywise absolute value |R| (right for R >= 0 only)
    "optimal weights from |R|": """
        _W = attnlib.model.weights
        def _wrong(R, *, normalize="sum", tol=1e-10):
            w = np.linalg.eigh(np.abs(np.asarray(R, dtype=float)))[1][:, -1]
            w = w if w.sum() > 0 else -w
            return w / np.linalg.norm(w) if normalize == "norm" else w / w.sum()
        _swap(_W, "optimal", _wrong)
    """,
    # eigh sorts eigenvalues in increasing order: the second column from the end taken for the top one
    "second eigenvector for the optimum": """
        _W = attnlib.model.weights
        def _wrong(R, *, normalize="sum", tol=1e-10):
            w = np.linalg.eigh(np.asarray(R, dtype=float))[1][:, -2]
            w = w if w.sum() > 0 else -w
            return w / np.linalg.norm(w) if normalize == "norm" or w.sum() < 1e-6 else w / w.sum()
        _swap(_W, "optimal", _wrong)
    """,
    # the best non-negative weights as the positive part of the signed top eigenvector
    "clipped top eigenvector for lambda_plus": """
        _W = attnlib.model.weights
        def _wrong(R, *, max_T=20, tol=1e-10):
            R = np.asarray(R, dtype=float)
            w = np.clip(_W.optimal(R, normalize="norm"), 0.0, None)
            w = w / w.sum()
            return w, float(w @ R @ w / (w @ w))
        _swap(_W, "optimal_nonnegative", _wrong)
    """,
    # the support of the best non-negative weights taken as the positive entries of the top eigenvector
    "support rule from the top eigenvector": """
        _W = attnlib.model.weights
        _nonneg = _W.optimal_nonnegative
        def _wrong(R, *, max_T=20, tol=1e-10):
            R = np.asarray(R, dtype=float)
            if np.all(R >= -tol):
                return _nonneg(R)
            keep = _W.optimal(R, normalize="norm") > tol
            top = np.abs(np.linalg.eigh(R[np.ix_(keep, keep)])[1][:, -1])
            w = np.zeros(R.shape[0])
            w[keep] = top / top.sum()
            return w, float(w @ R @ w / (w @ w))
        _swap(_W, "optimal_nonnegative", _wrong)
    """,
    # alpha/kappa with the squared 1-norm in the denominator (kappa = (sum |w|)^2 instead of ||w||^2)
    "snr with the squared 1-norm": """
        _W = attnlib.model.weights
        _snr = _W.snr
        def _wrong(w, R):
            w_arr = np.asarray(w, dtype=float)
            return _snr(w, R) * np.sum(w_arr * w_arr, axis=-1) / np.sum(np.abs(w_arr), axis=-1) ** 2
        _swap(_W, "snr", _wrong)
    """,
    # mean pooling on the prefix model: 1 + L^2/T instead of 1 + L(L - 1)/T
    "prefix mean snr with L^2": """
        _W = attnlib.model.weights
        _swap(_W, "prefix_snr_mean", lambda T, L: 1.0 + np.asarray(L, float) ** 2 / np.asarray(T, float))
    """,
    # the prefix-model alpha/kappa without the independent tail: (sum_{t<L} w_t)^2 / ||w||^2
    "prefix snr without the tail": """
        _W = attnlib.model.weights
        def _wrong(w, L):
            w = np.asarray(w, dtype=float)
            head = np.concatenate([[0.0], np.cumsum(w)])[np.asarray(L)]
            return head**2 / (w @ w)
        _swap(_W, "prefix_snr", _wrong)
    """,
}
