"""Wrong formulas that the closing checks of book/06_causal_attention.md must reject (tests/test_swaps.py)."""

CHAPTER = "06_causal_attention"

SWAPS = {
    "strictly causal weights": """
        _W = attnlib.weights
        _causal = _W.causal
        _swap(_W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, tau, strict=True))
    """,
}
