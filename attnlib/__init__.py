"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Modules, by concept:

* :mod:`~attnlib.theory`: closed forms, the bulk law kappa(MP_delta ⊠ MP_gamma) and the spike (BBP) formulas;
* :mod:`~attnlib.bulk`: comparing spectra with the bulk law (CDF, L1/KS distances, moments, finite-T effects);
* :mod:`~attnlib.transitions`: the two transitions (phase diagram, population/sample sweeps, finite size);
* :mod:`~attnlib.weights`, :mod:`~attnlib.families`, :mod:`~attnlib.positional`: pooling weights, catalogues of
  sign processes and their correlation R;
* :mod:`~attnlib.attention`: finite-d causal self-attention and its deviation from the limit;
* :mod:`~attnlib.model`, :mod:`~attnlib.setting`, :mod:`~attnlib.simulation`: the generative model, one object
  for a setting, Monte-Carlo draws and sweeps;
* :mod:`~attnlib.downstream`: labels, ridge and spectral classifiers and their predicted accuracy;
* :mod:`~attnlib.plotting`, :mod:`~attnlib.report`, :mod:`~attnlib.progress`: figures, rounded numbers, progress;
* :mod:`~attnlib.explorers` (imported on demand, needs ipywidgets): interactive explorers for JupyterLab.
"""

from . import (attention, bulk, downstream, families, model, positional, progress, report, simulation, theory,
               transitions, weights)
from .setting import Setting
from .simulation import simulate, sweep

__all__ = ["theory", "bulk", "transitions", "weights", "families", "positional", "model", "simulation", "attention",
           "downstream", "report", "progress", "Setting", "simulate", "sweep"]
__version__ = "0.1.0"
