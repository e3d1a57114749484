"""Wrong formulas that the closing checks of book/02_bulk_law.md must reject (tests/test_swaps.py)."""

CHAPTER = "02_bulk_law"

SWAPS = {
    # the bulk of a sample covariance of an isotropic population, ignoring the sampling
    "MP_delta for the bulk": """
        _L = attnlib.theory._law
        _mp_density, _mp_edges = _L.mp_density, _L.mp_edges
        _swap(_L, "bulk_density", lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta, kappa))
        _swap(_L, "bulk_edges", lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa))
    """,
    # the moment-matched Marchenko-Pastur law MP_(delta + gamma) for the density (same mean and variance)
    "MP_(delta+gamma) density for the bulk": """
        _L = attnlib.theory._law
        _mp_density = _L.mp_density
        _swap(_L, "bulk_density",
              lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta + gamma, kappa))
    """,
    # the edges as products of the two Marchenko-Pastur edges
    "bulk edges as products of MP edges": """
        _L = attnlib.theory._law

        def _edges_product(delta, gamma, kappa=1.0):
            lo = kappa * (1 - np.sqrt(delta)) ** 2 * (1 - np.sqrt(gamma)) ** 2
            hi = kappa * (1 + np.sqrt(delta)) ** 2 * (1 + np.sqrt(gamma)) ** 2
            return float(lo), float(hi)

        _swap(_L, "bulk_edges", _edges_product)
    """,
    # the edge equation without the factor 2: x^3 - sigma_2 x - sigma_3 = 0
    "edge cubic without the factor 2": """
        _L = attnlib.theory._law

        def _critical_no_2(delta, gamma):
            s2, s3 = delta + gamma + delta * gamma, delta * gamma
            roots = np.sort(np.roots([1.0, 0.0, -s2, -s3]).real)[::-1]
            return tuple(float(r) for r in roots)

        _swap(_L, "critical_x", _critical_no_2)
    """,
    # the atom at 0 from the vocabulary alone, max(0, 1 - 1/delta)
    "atom ignoring gamma": """
        _swap(attnlib.theory._law, "zero_atom",
              lambda delta, gamma: max(0.0, 1.0 - 1.0 / delta))
    """,
    # the bulk stretched by the pooled signal alpha = w^T R w instead of kappa = ||w||^2
    "bulk scaled by alpha": """
        import attnlib.engine.compare as _bulk

        def _params_alpha(setting):
            s = setting
            return s.d / (s.V - 1), s.d / (s.N - 1), s.alpha * (s.V - 1) * (s.N - 1) / (s.V * s.N)

        _swap(_bulk, "finite_size_parameters", _params_alpha)
    """,
    # the most-used token an outlier as soon as its share of the token-mixing matrix leaves that matrix's bulk,
    # (1 + sqrt(eta))^2, instead of at the sample threshold of a spike on MP_eta seen through d samples
    "heavy token outlier at the population edge": """
        import dataclasses
        _M = attnlib.studies.token_mixing
        _right = _M.heavy_token_thresholds

        def _at_edge(delta, gamma, w):
            h = _right(delta, gamma, w)
            eta = gamma / delta
            uses = (1 + np.sqrt(eta)) ** 2 / (eta * _M._w_ratio(w))  # T_eff / eta times the edge
            return dataclasses.replace(h, outlier_uses=float(uses))

        _swap(_M, "heavy_token_thresholds", _at_edge)
    """,
}
