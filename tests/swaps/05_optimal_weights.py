"""Wrong formulas that the closing checks of book/05_optimal_weights.md must reject (tests/test_swaps.py)."""

CHAPTER = "05_optimal_weights"

SWAPS = {
    "mean weights for the optimum": """
        _W = attnlib.weights
        def _wrong(R, *, normalize="sum", tol=1e-10):
            w = _W.mean(np.asarray(R).shape[0])
            return w / np.linalg.norm(w) if normalize == "norm" else w
        _swap(_W, "optimal", _wrong)
    """,
}
