r"""Interactive explorers for JupyterLab, and the static figures of their states for the HTML book.

Three explorers, each a one-liner in a chapter (``explorers.spectrum_explorer()``) and usable on its own:

* :func:`~attnlib.views.explorers.spectrum.spectrum_explorer`: sliders for delta, gamma, ||mu||^2, the weighting (mean / causal with tau /
  optimal), the positional-correlation family R and its parameter; shows the bulk density
  kappa (MP_delta ⊠ MP_gamma), its edges, the predicted outlier(s) and, on a button, a fresh simulated
  histogram.
* :func:`~attnlib.views.explorers.phase.phase_explorer`: the (gamma, theta) plane with the population and sample transition curves; a point
  moved by sliders reports its region, the predicted outliers and the overlaps.
* :func:`~attnlib.views.explorers.weights.weights_explorer`: the R family, its parameter and tau; shows the weight profiles and alpha, kappa,
  alpha/kappa of mean / causal / optimal pooling, R itself, and causal alpha/kappa across tau.

Every explorer is a pure function of a *state* (:class:`~attnlib.views.figures.spectrum.SpectrumState`,
:class:`~attnlib.views.figures.phase.PhaseState`, :class:`~attnlib.views.figures.weights.WeightsState`): ``*_theory(state)`` computes what is drawn, ``*_figure(state)`` draws it as an
ordinary matplotlib figure (for the book: the explorer's default state with nothing to drag), and the
explorer redraws the same figure when a control moves. The explorers hold no formula of their own: the
numbers come from :mod:`attnlib.theory`, :class:`attnlib.model.limit.Limit`, :mod:`attnlib.model.weights`,
:mod:`attnlib.model.positional` and :class:`attnlib.Setting`, and the simulation from :func:`attnlib.simulate`.

Layout: the states, their theory and their figures are :mod:`attnlib.views.figures` (no ipywidgets: the HTML
book's live explorers use them too); :mod:`attnlib.views.controls` declares every control once (a table: field,
kind, range, step, default, label, help); ``_widgets`` holds the plumbing (widgets built from that table, the
explorer base class, ``measure_latency``); ``spectrum``, ``phase`` and ``weights`` hold one explorer each.
"""

from __future__ import annotations

try:
    import ipywidgets  # noqa: F401  (the explorers' only dependency beyond attnlib's own)
except ImportError as exc:
    raise ImportError('attnlib.views.explorers needs ipywidgets: pip install "attnlib[explorers]"') from exc

from attnlib.views.controls import CONTROLS, FAMILIES, LAYOUTS, WEIGHTINGS, Control, on_grid
from attnlib.views.explorers._widgets import Explorer, measure_latency
from attnlib.views.explorers.phase import PhaseExplorer, phase_explorer
from attnlib.views.explorers.spectrum import SpectrumExplorer, spectrum_explorer
from attnlib.views.explorers.weights import WeightsExplorer, weights_explorer
from attnlib.views.figures.phase import (REGION_COLORS, REGION_KEYS, REGION_DESCRIPTIONS, PhaseState, phase_figure,
                                         phase_theory)
from attnlib.views.figures.spectrum import (SpectrumState, simulation_setting, spectrum_figure,
                                            spectrum_simulation, spectrum_theory)
from attnlib.views.figures.weights import WeightsState, weights_figure, weights_theory

__all__ = [
    "FAMILIES",
    "WEIGHTINGS",
    "CONTROLS",
    "LAYOUTS",
    "Control",
    "on_grid",
    "SpectrumState",
    "spectrum_theory",
    "simulation_setting",
    "spectrum_simulation",
    "spectrum_figure",
    "spectrum_explorer",
    "SpectrumExplorer",
    "PhaseState",
    "REGION_DESCRIPTIONS",
    "REGION_KEYS",
    "REGION_COLORS",
    "phase_theory",
    "phase_figure",
    "phase_explorer",
    "PhaseExplorer",
    "WeightsState",
    "weights_theory",
    "weights_figure",
    "weights_explorer",
    "WeightsExplorer",
    "Explorer",
    "measure_latency",
]
