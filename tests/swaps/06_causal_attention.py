"""Wrong formulas that the closing checks of book/06_causal_attention.md must reject (tests/test_swaps.py)."""

CHAPTER = "06_causal_attention"

SWAPS = {
    # the paper's statement: the strictly causal weights H_{T-1} - H_{t-1} for the usual mask s <= t
    "strictly causal weights": """
        _W = attnlib.model.weights
        _causal = _W.causal
        _swap(_W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, tau, strict=True))
    """,
    # the limit without the self term: the self score tau x_t^T x_t / d taken to vanish like the others,
    # which gives the harmonic weights for every tau
    "causal limit without the self term": """
        _W = attnlib.model.weights
        _causal = _W.causal
        _swap(_W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, 0.0, strict=strict))
    """,
    # the softmax of query t normalised over t + 1 earlier keys plus itself (an off-by-one in the denominator)
    "causal softmax over one key too many": """
        _W = attnlib.model.weights
        _causal = _W.causal
        def _wrong(T, tau=0.0, *, strict=False):
            if strict:
                return _causal(T, tau, strict=True)
            t = np.arange(T, dtype=float)
            et = np.exp(-tau)
            self_term = 1.0 / (1.0 + (t + 1) * et)
            other = et / (1.0 + (t + 1) * et)
            tail = np.concatenate([np.cumsum(other[::-1])[::-1][1:], [0.0]])
            return (self_term + tail) / T
        _swap(_W, "causal", _wrong)
    """,
    # the pooled weights normalised by the number of keys T - 1 instead of the T queries
    "causal weights over T - 1 queries": """
        _W = attnlib.model.weights
        _causal = _W.causal
        def _wrong(T, tau=0.0, *, strict=False):
            w = _causal(T, tau, strict=strict)
            return w if strict else w * T / (T - 1)
        _swap(_W, "causal", _wrong)
    """,
}
