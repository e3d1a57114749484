"""Wrong formulas that the closing checks of book/06_causal_attention.md reject."""

import numpy as np

from attnlib.model import weights as W
from checks import ch06, load
from .conftest import page_tests

RESULTS, _causal = load("06_causal_attention"), W.causal

def _one_key_too_many(T, tau=0.0, *, strict=False):  # query t's softmax over t + 1 earlier keys plus itself
    if strict:
        return _causal(T, tau, strict=True)
    t, et = np.arange(T, dtype=float), np.exp(-tau)
    other = et / (1.0 + (t + 1) * et)
    return (1.0 / (1.0 + (t + 1) * et) + np.concatenate([np.cumsum(other[::-1])[::-1][1:], [0.0]])) / T

WRONG = {  # name: wrong weights.causal
    # the paper's statement: the strictly causal weights H_{T-1} - H_{t-1} for the usual mask s <= t
    "strictly causal weights": lambda T, tau=0.0, *, strict=False: _causal(T, tau, strict=True),
    # the limit without the self term (the self score taken to vanish like the others): harmonic for every tau
    "causal limit without the self term": lambda T, tau=0.0, *, strict=False: _causal(T, 0.0, strict=strict),
    "causal softmax over one key too many": _one_key_too_many,
    # the pooled weights normalised by the number of keys T - 1 instead of the T queries
    "causal weights over T - 1 queries":
        lambda T, tau=0.0, *, strict=False: _causal(T, tau, strict=strict) * (1 if strict else T / (T - 1)),
}
test_holds, test_rejects = page_tests(ch06, RESULTS, {name: (W, "causal", wrong) for name, wrong in WRONG.items()})
