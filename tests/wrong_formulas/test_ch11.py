"""Wrong formulas that the closing checks of book/11_universality.md reject."""

import numpy as np

import attnlib
from attnlib import Setting, theory
from attnlib.model import frequencies as F, k_classes as C, noise as N, positional
from attnlib.model.variants import ModelOptions
from attnlib.theory import _spikes, population as G
from checks import ch11, load
from .conftest import page_tests, replaced

RESULTS = load("11_universality")
_map, _signal_function, _critical, _scatter = G._map, G.signal_function, G.critical_mu_norm2, C.scatter_eigenvalues

def _not_normalised(delta, y, population, mu_norm2=0.0, mu_weights=None):  # F without its 1 / (1 + delta psi)
    F_, dF = _signal_function(delta, y=y, population=population, mu_norm2=mu_norm2, mu_weights=mu_weights)
    if population.side == "tokens":
        return F_, dF
    y = np.asarray(y, dtype=float)
    den, ds = 1 + delta * population.psi(y), population.psi(y, derivative=True)
    return F_ * den, dF * den + F_ * delta * ds

def _independent_centroid(delta, y, population, mu_norm2=0.0, mu_weights=None):  # F = ||h||^2 G, h independent
    if population.side != "tokens":
        return _signal_function(delta, y=y, population=population, mu_norm2=mu_norm2, mu_weights=mu_weights)
    y, h2 = np.asarray(y, dtype=float), mu_norm2 + delta * population.moment(2)
    return h2 / (delta * y), -h2 / (delta * y**2)

def _unscaled(self, out, rng, fill=N.NoiseLaw.fill):  # Student-t noise of variance nu / (nu - 2)
    fill(self, out, rng)
    if self.name == "student":
        out /= np.sqrt((self.parameter - 2.0) / self.parameter)
    return out

def _redraw_student(r):
    # the population covariance of the Student-t law with 5 degrees of freedom drawn again (12 draws at d = 500,
    # the page's setting; with the right law this draw passes the checks)
    r, D, T = dict(r), r["d"], r["T"]
    band = Setting(d=D, V=4 * D, N=D, mu_norm2=0.0, process=positional.markov(T, r["markov_r"])).with_theta(
        r["theta_band"]).replace(options=ModelOptions(noise=N.student(5)))
    runs = attnlib.sweep([band], 1102, r["pop/top"].shape[1], k=1, level="population")
    for f in ("top", "overlap_h"):
        r[f"pop/{f}"] = np.vstack([r[f"pop/{f}"][:3], runs.values(f), r[f"pop/{f}"][4:]])
    return r

WRONG = {  # name: (module, function, wrong function)
    # the generalised law of the population only (the sample factor 1 + gamma psi left out)
    "one-stage generalised law": (G, "_map", lambda y, H, delta, gamma: _map(y, H, delta, 0.0)),
    # the noise-side F without the normalisation by 1 + delta psi (the centroid noise as free signal)
    "anisotropic F not normalised": (G, "signal_function", _not_normalised),
    # the Zipf spike with h independent of the noise: F = ||h||^2 G = (||mu||^2 + delta m_2) / (delta y)
    "Zipf centroid independent of the noise": (G, "signal_function", _independent_centroid),
    # the token-side map with delta and gamma exchanged
    "Zipf map with delta and gamma swapped": (G, "_map", lambda y, H, delta, gamma: _map(
        y, H, *((gamma, delta) if H.side == "tokens" and gamma > 0 else (delta, gamma)))),
    # the sample overlap factor of the generalised spike left out (population overlap reported for S)
    "generalised overlap without the sample stage": (G, "population_signal", replaced(
        G.population_signal,
        sample_overlap=lambda sp, *_, **__: sp.population_overlap if np.isfinite(sp.sample_eigenvalue)
        else sp.sample_overlap)),
    # the threshold on ||mu||^2 with mu always on the largest atom, wherever it lies
    "anisotropic threshold ignoring where mu lies": (G, "critical_mu_norm2", lambda delta, gamma, snr, population, *,
                                                     mu_fractions=None: _critical(delta, gamma, snr=snr,
                                                                                  population=population)),
    # the centroid shift with the vocabulary size instead of the effective vocabulary: d / V
    "Zipf centroid shift d over V": (F, "centroid_shift", lambda d, frequencies, classes=2: float(
        d / (classes * len(frequencies)))),
    # the between-class scatter from the Gram matrix of the means, without the 1/K
    "class scatter without 1/K": (C, "scatter_eigenvalues", lambda means: np.asarray(means).shape[0] * _scatter(means)),
    # the class spikes without the centroid noise: theta_j = (alpha/kappa) o_j
    "class spikes without delta": (_spikes, "class_spikes", lambda delta, gamma, nu, snr, kappa=1.0: theory.spike(
        delta, gamma, theta=snr * np.asarray(nu), kappa=kappa, direction="between-class")),
    # the K-class label correlation as the probability that two labels agree, 1/K + (1 - 1/K) p^|t-s|
    "K-class correlation as agreement probability": (C.LabelChain, "R", property(lambda self: 1 / self.K + (
        1 - 1 / self.K) * self.p ** np.abs(np.subtract.outer(np.arange(self.T), np.arange(self.T))))),
    # the Student-t noise not standardised: it changes what the page simulated, which is drawn again
    "Student noise not standardised": (N.NoiseLaw, "fill", _unscaled),
}
test_holds, test_rejects = page_tests(ch11, RESULTS, WRONG, redraw={"Student noise not standardised": _redraw_student})
