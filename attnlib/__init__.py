"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Modules, by concept:

* :mod:`~attnlib.theory`: the closed forms (bulk law kappa (MP_delta ⊠ MP_gamma), spike formulas, thresholds,
  regions of the phase diagram) and independent numerical routes to them;
* :mod:`~attnlib.limit`: :class:`~attnlib.limit.Limit`, the ratio-level object the theory is a function of;
* :mod:`~attnlib.positional`: sign processes, their correlation R and its realizability;
* :mod:`~attnlib.weights`: pooling weights, alpha/kappa and the optimum (signed and non-negative);
* :mod:`~attnlib.setting`: :class:`Setting`, one object for a finite setting (sizes, process, weights);
* :mod:`~attnlib.model`: the generative model (vocabulary, tokens, pooling, population covariance);
  :mod:`~attnlib.options`: departures from it (:mod:`~attnlib.noise`: noise laws and covariance; token
  frequencies), :mod:`~attnlib.classes`: more than two classes;
* :mod:`~attnlib.simulation` and :mod:`~attnlib.montecarlo`: one draw (:func:`simulate`) and the one
  Monte-Carlo engine (:func:`sweep`); :mod:`~attnlib.linalg`: eigen-solvers and numerical conventions;
  :mod:`~attnlib.operators`: S and the population covariance applied without forming them;
  :mod:`~attnlib.cost`: the work and memory of each path, the choice between them, the memory check;
  :mod:`~attnlib.density`: spectral densities by stochastic Lanczos quadrature;
* :mod:`~attnlib.bulk`: spectra against the bulk law (laws as objects, distances, moments);
  :mod:`~attnlib.mixing`: the bulk at a finite number of tokens; :mod:`~attnlib.counts`: the one-token law;
  :mod:`~attnlib.generalized`: the bulk and spike with a noise covariance or token frequencies;
  :mod:`~attnlib.frequencies`: Zipf token frequencies and the effective vocabulary;
* :mod:`~attnlib.fluctuations` and :mod:`~attnlib.tracy_widom`: finite-size fluctuations (edge scale,
  outlier variance, critical window) and the Tracy-Widom laws; :mod:`~attnlib.finite_size`: the estimators
  that measure them (variance by source, scaling collapse, the d a precision needs);
* :mod:`~attnlib.attention`: finite-d causal self-attention in its limit; :mod:`~attnlib.layer`: the real
  layer end to end; :mod:`~attnlib.learning`: learned positional attention;
* :mod:`~attnlib.downstream`, :mod:`~attnlib.experiment` and :mod:`~attnlib.classifiers`: the downstream
  task, its predictions, the experiment and the classifiers;
* :mod:`~attnlib.plotting`, :mod:`~attnlib.report`, :mod:`~attnlib.progress`: figures, rounded numbers,
  progress bars; :mod:`~attnlib.controls`: the explorers' controls, declared once;
* imported on demand: :mod:`~attnlib.explorers` (the ``explorers`` extra: JupyterLab explorers) and
  :mod:`~attnlib.webexplorer` (the live explorers of the HTML book; needs IPython).
"""

from . import (attention, bulk, classes, classifiers, controls, cost, counts, density, downstream, experiment,
               finite_size, fluctuations, frequencies, generalized, layer, learning, limit, linalg, mixing, model,
               montecarlo, noise, operators, options, plotting, positional, progress, report, simulation, theory,
               tracy_widom, weights)
from .limit import Limit
from .montecarlo import sweep
from .setting import Setting
from .simulation import simulate

__all__ = ["theory", "limit", "positional", "weights", "model", "simulation", "montecarlo", "linalg", "operators",
           "cost", "density", "bulk", "mixing", "counts", "fluctuations", "finite_size",
           "tracy_widom", "attention", "layer", "noise", "options", "generalized", "frequencies", "classes",
           "learning", "downstream", "experiment", "classifiers", "plotting", "report", "progress", "controls",
           "Limit", "Setting", "simulate", "sweep"]
__version__ = "0.1.0"
