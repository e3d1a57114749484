"""Wrong formulas that the closing checks of book/02_bulk_law.md must reject (tests/test_swaps.py)."""

CHAPTER = "02_bulk_law"

SWAPS = {
    "MP_delta for the bulk": """
        _L = attnlib.theory._law
        _mp_density, _mp_edges = _L.mp_density, _L.mp_edges
        _swap(_L, "bulk_density", lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta, kappa))
        _swap(_L, "bulk_edges", lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa))
    """,
    "bulk ignoring T_eff": """
        _swap(attnlib.mixing, "m4_shift", lambda delta, gamma, w: 0.0)
    """,
}
