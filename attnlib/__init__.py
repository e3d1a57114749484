"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Five layers, each a subpackage, each importing only the layers below it (enforced by
``tests/test_architecture.py``)::

    views      plotting, tables, controls, explorers, webexplorer (+ weboverlays, webstills)
      |
    studies    downstream, experiment, classifiers, finite_size, token_mixing, causal_attention,
      |        real_layer, learning, k_class_sweep
    engine     simulation (one draw), montecarlo (the one loop, the random streams), operators, slq,
      |        cost, spectra, progress
    model      positional, weights, limit, setting, noise, frequencies, variants, generative, k_classes
      |
    theory     the closed forms (bulk law, spikes, thresholds, routes), laws, one_token, population,
      |        fluctuations, tracy_widom
    numerics   checks (argument validation), linalg (eigen-solvers, the zero rule, BLAS threads)

Where a new piece goes: a formula or a law in :mod:`attnlib.theory`; a model variant in
:mod:`attnlib.model`; a way to draw or to loop over draws in :mod:`attnlib.engine`; a chapter's analysis in
:mod:`attnlib.studies`; a figure or a table in :mod:`attnlib.views`.

The public contract, importable from here: :class:`Setting`, :func:`simulate`, :func:`sweep`, :func:`compare`
(theory against simulation), :class:`Limit`,
:mod:`attnlib.theory` and :mod:`attnlib.weights` (= :mod:`attnlib.model.weights`), :mod:`attnlib.positional`
(= :mod:`attnlib.model.positional`).
"""

from attnlib import engine, model, numerics, studies, theory, views
from attnlib.engine.montecarlo import sweep
from attnlib.engine.simulation import simulate
from attnlib.model import positional, weights
from attnlib.model.limit import Limit
from attnlib.model.setting import Setting
from attnlib.views.agreement import compare

__all__ = ["numerics", "theory", "model", "engine", "studies", "views", "positional", "weights", "Limit",
           "Setting", "simulate", "sweep", "compare"]
__version__ = "0.3.0"
