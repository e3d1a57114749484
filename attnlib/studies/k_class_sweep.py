r"""The Monte-Carlo sweep of the K-class model (:mod:`attnlib.model.k_classes`): top eigenpairs of the
centred S and their overlaps with the between-class directions, over settings and trials."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.model.k_classes import ClassSetting, draw_class_vocabulary
from attnlib.numerics.linalg import eigen
from attnlib.model.generative import sample_tokens
from attnlib.model.pooling import pool_table
from attnlib.engine.montecarlo import replicate

__all__ = ["ClassSweep", "class_sweep"]


@dataclass(frozen=True, eq=False)
class ClassSweep:
    """Results of :func:`class_sweep` over (settings, trials): top ``k`` eigenvalues (S, trials, k); ``overlaps``
    (S, trials, k, K-1), cos^2 of eigenvector i with the vocabulary's spike direction j
    (:meth:`attnlib.model.k_classes.ClassVocabulary.directions`); ``strengths`` (S, trials, K-1): the eigenvalues of B of each
    vocabulary."""

    settings: tuple
    eigenvalues: np.ndarray
    overlaps: np.ndarray
    strengths: np.ndarray


def _draw(setting: ClassSetting, rng: np.random.Generator, k: int):
    vocab = draw_class_vocabulary(setting.d, setting.V, setting.means, rng, options=setting.options)
    tokens = sample_tokens(setting.chain.sample(setting.N, rng), setting.V, rng, classes=setting.K)
    C = pool_table(vocab.table, tokens, setting.weights, 1)
    C -= C.mean(axis=0)
    vals, vecs, _ = eigen(C, k, full=False)
    strengths, b = vocab.directions()
    return vals, (vecs.T @ b) ** 2, strengths


def class_sweep(settings, seed: int, trials: int, *, k: int | None = None) -> ClassSweep:
    """Simulate every :class:`~attnlib.model.k_classes.ClassSetting` ``trials`` times (fresh vocabulary, labels, tokens per trial).

    Trial j of setting i uses ``montecarlo.streams(seed, S * trials)[i * trials + j]`` (vocabulary, then
    labels, then tokens); draws run in threads on one BLAS thread each, so results do not depend on the
    number of threads. ``k``: eigenpairs kept (default K - 1 of the first setting).
    """
    settings = (settings,) if isinstance(settings, ClassSetting) else tuple(settings)
    if not settings or not all(isinstance(s, ClassSetting) for s in settings):
        raise ValueError("settings must be a ClassSetting or a non-empty sequence of them")
    K = settings[0].K
    if any(s.K != K for s in settings):
        raise ValueError("every setting must have the same number of classes K")
    k = _v.positive_int("k", K - 1 if k is None else k)
    if any(k >= s.d - 1 for s in settings):
        raise ValueError(f"k must be < d - 1 for every setting, got {k}")
    trials = _v.positive_int("trials", trials)
    results = replicate(lambda rng, n: _draw(settings[n // trials], rng, k), seed, len(settings) * trials,
                        threads=True)
    shape = (len(settings), trials)
    return ClassSweep(settings=settings, eigenvalues=np.array([r[0] for r in results]).reshape(*shape, k),
                      overlaps=np.array([r[1] for r in results]).reshape(*shape, k, K - 1),
                      strengths=np.array([r[2] for r in results]).reshape(*shape, K - 1))
