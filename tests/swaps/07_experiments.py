"""Wrong formulas that the closing checks of book/07_experiments.md must reject (tests/test_swaps.py)."""

CHAPTER = "07_experiments"

SWAPS = {
    # the label SNR without the free-sign noise: varsigma^2 = a^2 M / kappa, the formula for weights on the prefix
    "label snr without the free signs": """
        _D = attnlib.studies.downstream
        def _wrong(setting, position=None):
            a = _D.label_signal(setting.weights, setting.R, _D.resolve_position(setting.process, position))
            M = (setting.mu_norm2 + setting.delta) / (1 - setting.delta)
            return float(a * a / setting.kappa * M)
        _swap(_D, "label_snr", _wrong)
    """,
    # the label SNR with M = ||mu||^2 + delta (h^T W'^{-1} h taken as ||h||^2, forgetting the 1/(1 - delta))
    "label snr without 1/(1 - delta)": """
        _D = attnlib.studies.downstream
        def _wrong(setting, position=None):
            a = _D.label_signal(setting.weights, setting.R, _D.resolve_position(setting.process, position))
            M = setting.mu_norm2 + setting.delta
            return float(a * a / setting.kappa * M / (1 + (setting.alpha - a * a) / setting.kappa * M))
        _swap(_D, "label_snr", _wrong)
    """,
    # the label SNR ranked by alpha/kappa: varsigma^2 = M alpha/kappa for every weighting
    "label snr as M alpha/kappa": """
        _D = attnlib.studies.downstream
        def _wrong(setting, position=None):
            return float((setting.mu_norm2 + setting.delta) / (1 - setting.delta) * setting.snr)
        _swap(_D, "label_snr", _wrong)
    """,
    # the spectral classifier's variance from the in-sample second moment: u^T Sigma u = lambda, not l^2/lambda
    "in-sample variance for the spectral classifier": """
        _D = attnlib.studies.downstream
        _swap(_D, "_quadratic_form", lambda sp: float(sp.sample_eigenvalue))
    """,
    # the spectral classifier's signal from the overlap with u = mu/||mu|| instead of the centroid h
    "overlap with u for the spectral classifier": """
        _D = attnlib.studies.downstream
        _spectral = _D.spectral_accuracy
        def _wrong(setting, position=None, n_anchor=None, h_norm2=None):
            right = _spectral(setting, position, n_anchor, h_norm2)
            if right.eta2 == 0.0:
                return right
            # <v, h>^2 = ||h||^2 x (sample overlap with u) = ||h||^2 x (overlap with h) x ||mu||^2/(||mu||^2 + delta)
            eta2 = right.eta2 * setting.mu_norm2 / (setting.mu_norm2 + setting.delta)
            noise = right.quad - right.a**2 * eta2
            snr = right.a * np.sqrt(eta2 / noise)
            signed = float(attnlib.studies.downstream.ndtr(snr))
            flip = 0.0 if n_anchor is None else float(attnlib.studies.downstream.ndtr(-np.sqrt(n_anchor) * snr))
            acc = (1 - flip) * signed + flip * (1 - signed)
            return _D.SpectralPrediction(right.a, eta2, right.quad, noise, float(snr), signed, flip, acc)
        _swap(_D, "spectral_accuracy", _wrong)
    """,
}
