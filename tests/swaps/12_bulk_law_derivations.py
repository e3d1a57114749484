"""Wrong formulas that the closing checks of book/12_bulk_law_derivations.md must reject (tests/test_swaps.py)."""

CHAPTER = "12_bulk_law_derivations"

SWAPS = {
    # no finite-T correction: the bulk law at every number of tokens
    "bulk ignoring T_eff": """
        _swap(attnlib.studies.token_mixing, "m4_shift", lambda delta, gamma, w: 0.0)
    """,
    # the excess to the first power of 1/T_eff: delta gamma^2 / T_eff
    "fourth-moment excess with 1/T_eff": """
        def _m4_first_power(delta, gamma, w):
            w = np.asarray(w, dtype=float)
            return float(delta * gamma**2 * np.sum(w**4) / np.sum(w**2) ** 2)

        _swap(attnlib.studies.token_mixing, "m4_shift", _m4_first_power)
    """,
    # delta and gamma exchanged in the excess: delta^2 gamma / T_eff^2
    "fourth-moment excess with delta and gamma exchanged": """
        def _m4_exchanged(delta, gamma, w):
            w = np.asarray(w, dtype=float)
            return float(delta**2 * gamma * (np.sum(w**4) / np.sum(w**2) ** 2) ** 2)

        _swap(attnlib.studies.token_mixing, "m4_shift", _m4_exchanged)
    """,
    # the third moment of the moment-matched MP_(delta + gamma): sigma_1^2 + sigma_2 - sigma_3
    "third moment of MP_(delta+gamma)": """
        _orig_moments = attnlib.theory._law.bulk_moments

        def _moments_mp(k, delta, gamma, kappa=1.0):
            m = _orig_moments(k, delta, gamma, kappa)
            if k >= 3:
                m = m.copy()
                m[2] -= delta * gamma * kappa**3
            return m

        _swap(attnlib.theory._law, "bulk_moments", _moments_mp)
    """,
    # the square-root edge constant with sigma_3 instead of 3 sigma_3
    "edge constant without the factor 3": """
        import attnlib.theory.fluctuations as _fl

        def _edge_constant_no_3(delta, gamma, kappa=1.0):
            x_star = attnlib.theory.critical_x(delta, gamma)[0]
            upper = float(attnlib.theory.outlier_map(x_star, delta, gamma, kappa))
            s2, s3 = delta + gamma + delta * gamma, delta * gamma
            return float(1.0 / (upper * np.sqrt(kappa * (s2 * x_star + s3))))

        _swap(_fl, "edge_constant", _edge_constant_no_3)
    """,
    # the Tracy-Widom scale d^(-1/2) (a central-limit scale) instead of d^(-2/3)
    "Tracy-Widom scale with the power 1/2": """
        import attnlib.theory.fluctuations as _fl
        _edge_constant = _fl.edge_constant
        _swap(_fl, "edge_scale",
              lambda delta, gamma, kappa, d: float((_edge_constant(delta, gamma, kappa) * d) ** -0.5))
    """,
    # the complex Tracy-Widom law TW_2 (mean -1.7711, sd 0.9018) for the real one
    "TW_2 constants for TW_1": """
        import attnlib.theory.tracy_widom as _tw
        _tw.MEAN, _tw.SD = -1.7710868074, 0.9018020
    """,
    # the lower edge measured on the upper edge's Tracy-Widom scale
    "lower edge on the upper edge's scale": """
        import attnlib.engine.compare as _bulk
        import attnlib.theory.fluctuations as _fl
        _swap(_bulk, "lower_edge_scale", _fl.edge_scale)
    """,
    # the most-used token's term with the mean count instead of the largest
    "heavy token term with the mean count": """
        _swap(attnlib.studies.token_mixing, "heavy_token_term", lambda delta, gamma, w, d: float(delta))
    """,
}
