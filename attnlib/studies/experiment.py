r"""The downstream experiment of Section 6: ridge and spectral classifiers on pooled vectors, run over weightings,
training sizes and vocabularies (the task and its predictions are in :mod:`attnlib.studies.downstream`).

For each vocabulary, one set of sequences serves every weighting (a paired comparison): ``max(n_train)``
training sequences (the training set of size n is the first n), then ``n_anchor`` labelled *anchor* sequences,
then ``n_test`` test sequences. The anchors fix the sign of the spectral classifier's eigenvector and are held
out of S, so that their projections are out of sample, like a test sequence's: mean :math:`\pm a\langle\hat u,
h\rangle`, variance :math:`\hat u^\top\Sigma\hat u - a^2\langle\hat u, h\rangle^2` (the variance that
:func:`attnlib.studies.downstream.spectral_accuracy` uses). A training row's projection is in sample: its second moment
is the top eigenvalue :math:`\lambda` of S itself. The runner records both votes (``vote_in``, ``vote_out``) so
that the difference can be seen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.studies.classifiers import (DEFAULT_LAMBDAS, Decomposition, lambda_grid,
    ridge_path, signed_fit, accuracy)
from attnlib.numerics.linalg import squared_cosine
from attnlib.numerics.statistics import largest_difference
from attnlib.theory import classification
from attnlib.model.generative import Vocabulary, draw_vocabulary, population_covariance, sample_tokens
from attnlib.model.pooling import pool
from attnlib.engine.montecarlo import replicate
from attnlib.model.positional import SignProcess
from attnlib.model.setting import Setting
from attnlib.studies.downstream import resolve_position, spectral_accuracy

__all__ = ["Experiment", "run_experiment", "across", "first_vocabulary_difference"]

#: Per-fit measurements of :func:`run_experiment`, in the order of the fields of :class:`Experiment`.
_FIELDS = ("ridge", "spectral", "overlap_u", "overlap_h", "eta2", "quad", "spectral_plugin", "lam_rel",
           "sign_error", "top", "vote_in", "vote_out")
#: The settings of an :class:`Experiment` that :meth:`Experiment.arrays` records as numbers.
_SCALARS = ("position", "d", "V", "mu_norm2", "n_test", "n_anchor", "seed")


@dataclass(frozen=True, eq=False)
class Experiment:
    """Results of :func:`run_experiment`.

    Arrays of shape (len(n_train), len(names), vocabularies): ``ridge``, ``spectral`` (test accuracies),
    ``overlap_u``, ``overlap_h`` (cos^2 of u_hat with u and h), ``eta2`` (<u_hat, h>^2), ``quad``
    (u_hat^T Sigma u_hat, the out-of-sample second moment of a projection), ``spectral_plugin`` (the Gaussian
    approximation Phi(a eta / sd) at the measured eta = <u_hat, h> (signed by the anchors) and quad),
    ``lam_rel`` (chosen ridge lambda), ``sign_error`` (1 if the anchors picked the wrong sign of u_hat),
    ``top`` (top eigenvalue of S: the in-sample second moment of a projection), ``vote_in`` and ``vote_out``
    (mean of y p over the training rows and over the test rows, p the projection on u_hat signed by a eta > 0).
    Shape (len(names), vocabularies): ``oracle`` (test accuracy of the Fisher rule Sigma_n^{-1} h of the
    vocabulary; nan if delta >= 1). Shape (vocabularies,): ``h_norm2`` (||h||^2 of each vocabulary's class
    centroid h = mu + Zs/V, see ``h_norm2`` of :func:`attnlib.studies.downstream.spectral_accuracy`).
    """

    names: tuple
    weights: tuple
    process: SignProcess
    position: int
    d: int
    V: int
    mu_norm2: float
    n_train: np.ndarray
    n_test: int
    n_anchor: int
    seed: int
    ridge: np.ndarray
    spectral: np.ndarray
    overlap_u: np.ndarray
    overlap_h: np.ndarray
    eta2: np.ndarray
    quad: np.ndarray
    spectral_plugin: np.ndarray
    lam_rel: np.ndarray
    sign_error: np.ndarray
    top: np.ndarray
    vote_in: np.ndarray
    vote_out: np.ndarray
    oracle: np.ndarray
    h_norm2: np.ndarray

    @property
    def vocabularies(self) -> int:
        return self.ridge.shape[-1]

    def mean(self, name: str) -> np.ndarray:
        return getattr(self, name).mean(axis=-1)

    def sem(self, name: str) -> np.ndarray:
        """Standard error over vocabularies (each vocabulary with its own sequences)."""
        values = getattr(self, name)
        if values.shape[-1] < 2:
            raise ValueError(f"the standard error needs at least 2 vocabularies, got {values.shape[-1]}")
        return values.std(axis=-1, ddof=1) / np.sqrt(values.shape[-1])

    def paired_difference(self, name: str, better: int, worse: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error over vocabularies of ``name`` for weighting ``better`` minus ``worse``."""
        values = getattr(self, name)
        diff = values[..., better, :] - values[..., worse, :]
        return diff.mean(axis=-1), diff.std(axis=-1, ddof=1) / np.sqrt(diff.shape[-1])

    def setting(self, i_weight: int, n_train: int) -> Setting:
        """The :class:`~attnlib.model.setting.Setting` (N = n_train) of weighting ``i_weight``, for the theory."""
        return Setting(d=self.d, V=self.V, N=int(n_train), mu_norm2=self.mu_norm2, process=self.process,
                       weights=self.weights[i_weight], label=self.names[i_weight])

    def predicted_spectral(self, *, own_h: bool = False) -> np.ndarray:
        """The predicted accuracy of the spectral classifier (:func:`attnlib.studies.downstream.spectral_accuracy`
        with this experiment's anchors), shape (len(n_train), len(names)); ``own_h``: the prediction fed with each
        vocabulary's own ||h||^2 (``h_norm2``), averaged over the vocabularies, instead of the limit of ||h||^2."""
        def one(j, n):
            s = self.setting(j, n)
            if not own_h:
                return spectral_accuracy(s, n_anchor=self.n_anchor).accuracy
            return np.mean([spectral_accuracy(s, n_anchor=self.n_anchor, h_norm2=h2).accuracy
                            for h2 in self.h_norm2])
        return np.array([[one(j, n) for j in range(len(self.names))] for n in self.n_train])

    def settings(self) -> dict:
        """What :func:`run_experiment` was called with, besides the process and the weightings: ``d``, ``V``,
        ``mu_norm2``, ``n_train`` (a list), ``n_test``, ``vocabularies``, ``n_anchor`` and ``seed``."""
        return {"d": self.d, "V": self.V, "mu_norm2": self.mu_norm2, "n_train": self.n_train.tolist(),
                "n_test": self.n_test, "vocabularies": self.vocabularies, "n_anchor": self.n_anchor,
                "seed": self.seed}

    def select(self, names) -> Experiment:
        """The weightings ``names`` alone, in that order: what :func:`run_experiment` gives with only these
        weightings (each weighting's classifiers see the same draws, whatever the other weightings are)."""
        names = list(names)
        unknown = [n for n in names if n not in self.names]
        if not names or unknown:
            raise ValueError(f"names must be a non-empty list of {list(self.names)}, got {names!r}")
        j = [self.names.index(n) for n in names]
        return replace(self, names=tuple(names), weights=tuple(self.weights[i] for i in j), oracle=self.oracle[j],
                       **{f: getattr(self, f)[:, j] for f in _FIELDS})

    def arrays(self, prefix: str = "") -> dict:
        """The experiment as named arrays, for ``numpy.savez`` (read back by :meth:`from_arrays`); the sign
        process is recorded by its correlation ``R``."""
        scalars = {k: getattr(self, k) for k in _SCALARS}
        return {prefix + k: np.asarray(v) for k, v in {
            "names": np.array(self.names), "weights": np.array(self.weights), "R": self.process.R,
            "n_train": self.n_train, "oracle": self.oracle, "h_norm2": self.h_norm2, **scalars,
            **{f: getattr(self, f) for f in _FIELDS}}.items()}

    @classmethod
    def from_arrays(cls, arrays, process: SignProcess, prefix: str = "") -> Experiment:
        """The experiment that :meth:`arrays` wrote (e.g. a ``numpy.load`` of the file), run on ``process``
        (whose ``R`` must be the one recorded)."""
        if not isinstance(process, SignProcess):
            raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
        R = np.asarray(arrays[prefix + "R"])
        if R.shape != process.R.shape or not np.array_equal(R, process.R):
            raise ValueError(f"process must be the one the experiment ran on: its R differs from the recorded R "
                             f"(prefix {prefix!r})")
        scalars = {k: (float if k == "mu_norm2" else int)(arrays[prefix + k]) for k in _SCALARS}
        return cls(names=tuple(str(n) for n in arrays[prefix + "names"]),
                   weights=tuple(np.asarray(arrays[prefix + "weights"])), process=process,
                   n_train=np.asarray(arrays[prefix + "n_train"]), oracle=np.asarray(arrays[prefix + "oracle"]),
                   h_norm2=np.asarray(arrays[prefix + "h_norm2"]), **scalars,
                   **{f: np.asarray(arrays[prefix + f]) for f in _FIELDS})


def first_vocabulary_difference(ex: Experiment) -> float:
    """Re-run vocabulary 0 of ``ex`` (its random stream depends only on the seed) and return the largest
    difference from what ``ex`` holds (:func:`attnlib.numerics.statistics.largest_difference`). Proves that
    stored results were made by this code."""
    if not isinstance(ex, Experiment):
        raise ValueError(f"ex must be an Experiment, got {ex!r:.80}")
    again = run_experiment(ex.process, dict(zip(ex.names, ex.weights)), d=ex.d, V=ex.V, mu_norm2=ex.mu_norm2,
                           n_train=ex.n_train, n_test=ex.n_test, vocabularies=1, seed=ex.seed,
                           n_anchor=ex.n_anchor, position=ex.position)
    return max(largest_difference(getattr(again, f), getattr(ex, f)[..., :1])
               for f in (*_FIELDS, "oracle", "h_norm2"))


def across(experiments, statistic: str, field: str, i_train: int = 0) -> np.ndarray:
    """``statistic`` ("mean" or "sem") of ``field`` at training size ``i_train`` of each experiment of a sweep
    (e.g. one experiment per ||mu||^2), shape (len(experiments), number of weightings)."""
    statistic = _v.choice("statistic", statistic, ("mean", "sem"))
    field = _v.choice("field", field, _FIELDS)
    experiments = list(experiments)
    if not experiments or not all(isinstance(e, Experiment) for e in experiments):
        raise ValueError(f"experiments must be a non-empty sequence of Experiment, got {experiments!r:.80}")
    i_train = _v.positive_int("i_train", i_train, minimum=0)
    if any(i_train >= len(e.n_train) for e in experiments):
        raise ValueError(f"i_train must index every experiment's n_train, got {i_train}")
    return np.array([getattr(e, statistic)(field)[i_train] for e in experiments])


def _one_vocabulary(rng, process, weights, position, d, V, mu_norm2, n_train, n_test, n_anchor, lam_rel):
    """All measurements for one vocabulary: shared sequences for every weighting (paired comparison)."""
    voc: Vocabulary = draw_vocabulary(d, V, mu_norm2, rng)
    n_max = int(max(n_train))
    xi = process.sample(n_max + n_anchor + n_test, rng)
    tokens = sample_tokens(xi, V, rng)
    y = xi[:, position].astype(np.int8)
    y_train, y_anchor, y_test = y[:n_max], y[n_max:n_max + n_anchor], y[n_max + n_anchor:]
    parts = population_covariance(voc, weights[0], process.R, parts=True)
    W_prime, h = parts["W_prime"], parts["h"]
    out = np.full((len(_FIELDS), len(n_train), len(weights)), np.nan)
    oracle = np.full(len(weights), np.nan)
    for j, w in enumerate(weights):
        C = pool(voc, tokens, w)
        C_train, C_anchor, C_test = C[:n_max], C[n_max:n_max + n_anchor], C[n_max + n_anchor:]
        alpha, kappa = float(w @ process.R @ w), float(w @ w)
        a = float(process.R[position] @ w)
        if d < V - 2:  # W' invertible: Fisher rule of this vocabulary, direction Sigma_n^{-1} h
            beta = np.linalg.solve(kappa * W_prime + (alpha - a * a) * np.outer(h, h), h)
            oracle[j] = accuracy(y_test, np.sign(a) * ((C_test - C_train.mean(axis=0)) @ beta))
        for i, n in enumerate(n_train):
            yn = y_train[:n].astype(float)
            dec = Decomposition.of(C_train[:n])  # one eigendecomposition serves ridge and the spectral classifier
            fit = ridge_path(dec, yn, lam_rel)
            top_value, top_vector = dec.top_direction()
            spec = signed_fit(top_vector, dec.x_mean, top_value, C_anchor - dec.x_mean, y_anchor.astype(float))
            u = spec.direction
            eta = float(u @ h)
            quad = kappa * float(u @ W_prime @ u) + alpha * eta * eta
            # the Gaussian approximation at the measured <u, h> and u^T Sigma u, with the sign the anchors chose
            plugin = classification.projection_accuracy(a * eta, quad)
            sign = 1.0 if a * eta >= 0 else -1.0  # votes measured with the sign that makes the class mean positive
            vote_in = sign * float(np.mean(yn * (dec.Xc @ u)))
            vote_out = sign * float(np.mean(y_test * (spec.decision(C_test))))
            out[:, i, j] = (accuracy(y_test, fit.decision(C_test)), accuracy(y_test, spec.decision(C_test)),
                            squared_cosine(u, voc.u), squared_cosine(u, h), eta * eta, quad, plugin, fit.lam_rel,
                            float(a * eta < 0), top_value, vote_in, vote_out)
    return out, oracle, float(h @ h)


def run_experiment(process: SignProcess, weights: dict, *, d: int, V: int, mu_norm2: float, n_train, n_test: int,
                   vocabularies: int, seed: int, n_anchor: int = 20, position: int | None = None,
                   lam_rel=DEFAULT_LAMBDAS, desc: str | None = None) -> Experiment:
    """Ridge and spectral classifiers for several weightings, training sizes and vocabularies.

    For each vocabulary v (random stream ``SeedSequence(seed).spawn(vocabularies)[v]``): draw the table, then
    max(n_train) training, ``n_anchor`` anchor and ``n_test`` test sequences, shared by all weightings (a paired
    comparison); the training set of size n is the first n sequences, the anchors (labelled, held out of S) fix
    the sign of the spectral classifier. Labels are the signs at the label position. Reusing ``seed`` with
    another ``mu_norm2`` reuses the same noise Z and sequences (the table is Z + s mu^T).
    """

    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    if not isinstance(weights, dict) or not weights:
        raise ValueError(f"weights must be a non-empty dict name -> weight vector, got {weights!r}")
    names = tuple(weights)
    ws = tuple(_v.weights_vector(f"weights[{name!r}]", w, process.T) for name, w in weights.items())
    b = resolve_position(process, position)
    d = _v.positive_int("d", d)
    V = _v.positive_int("V", V, even=True, minimum=2)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    sizes = tuple(_v.positive_int("n_train", n, minimum=3) for n in np.atleast_1d(np.asarray(n_train)).tolist())
    n_test = _v.positive_int("n_test", n_test)
    vocabularies = _v.positive_int("vocabularies", vocabularies)
    seed = _v.positive_int("seed", seed, minimum=0)
    n_anchor = _v.positive_int("n_anchor", n_anchor)
    lam_rel = lambda_grid(lam_rel)
    res = np.empty((len(_FIELDS), len(sizes), len(ws), vocabularies))
    oracle, h_norm2 = np.empty((len(ws), vocabularies)), np.empty(vocabularies)
    runs = replicate(lambda rng, v: _one_vocabulary(rng, process, ws, b, d, V, mu_norm2, sizes, n_test, n_anchor,
                                                    lam_rel), seed, vocabularies, desc=desc)
    for v, (out, orc, h2) in enumerate(runs):
        res[..., v], oracle[:, v], h_norm2[v] = out, orc, h2
    return Experiment(names=names, weights=ws, process=process, position=b, d=d, V=V, mu_norm2=mu_norm2,
                      n_train=np.array(sizes), n_test=n_test, n_anchor=n_anchor, seed=seed, oracle=oracle,
                      h_norm2=h_norm2, **dict(zip(_FIELDS, res)))
