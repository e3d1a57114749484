"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Modules, by concept:

* :mod:`~attnlib.theory`: the closed forms (bulk law kappa (MP_delta ⊠ MP_gamma), spike formulas, thresholds,
  regions of the phase diagram) and independent numerical routes to them;
* :mod:`~attnlib.limit`: :class:`~attnlib.limit.Limit`, the ratio-level object the theory is a function of;
* :mod:`~attnlib.positional`: sign processes, their correlation R and its realizability;
* :mod:`~attnlib.weights`: pooling weights and alpha/kappa;
* :mod:`~attnlib.setting`: :class:`Setting`, one object for a finite setting (sizes, process, weights);
* :mod:`~attnlib.model`: the generative model (vocabulary, tokens, pooling, population covariance);
* :mod:`~attnlib.simulation` and :mod:`~attnlib.montecarlo`: one draw (:func:`simulate`) and the one
  Monte-Carlo engine (:func:`sweep`); :mod:`~attnlib.linalg`: eigen-solvers and numerical conventions;
  ``attnlib.operators``: S and the population covariance applied without forming them;
  ``attnlib.cost``: the work and memory of each path, the choice between them, the memory check;
  ``attnlib.density``: spectral densities by stochastic Lanczos quadrature;
* :mod:`~attnlib.bulk`: spectra against the bulk law (laws as objects, distances, moments, finite T);
* :mod:`~attnlib.attention`: finite-d causal self-attention;
* :mod:`~attnlib.downstream` and :mod:`~attnlib.classifiers`: the downstream task, its predictions and its
  classifiers;
* :mod:`~attnlib.plotting`, :mod:`~attnlib.report`, :mod:`~attnlib.progress`: figures, rounded numbers,
  progress bars;
* :mod:`~attnlib.explorers` (imported on demand, needs the ``explorers`` extra): interactive explorers.
"""

from . import (attention, bulk, classifiers, cost, density, downstream, limit, linalg, model, montecarlo, operators,
               plotting, positional, progress, report, simulation, theory, weights)
from .limit import Limit
from .montecarlo import sweep
from .setting import Setting
from .simulation import simulate

__all__ = ["theory", "limit", "positional", "weights", "model", "simulation", "montecarlo", "linalg", "operators",
           "cost", "density", "bulk", "attention", "downstream", "classifiers", "plotting", "report", "progress",
           "Limit", "Setting", "simulate", "sweep"]
__version__ = "0.1.0"
