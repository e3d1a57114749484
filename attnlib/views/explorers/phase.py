"""The phase explorer (ipywidgets) over the phase figure of :mod:`attnlib.views.figures.phase`."""

from __future__ import annotations

from attnlib.views.controls import resolve_state
from attnlib.views.explorers._widgets import Explorer
from attnlib.views.figures.phase import PhasePlot, PhaseState, phase_readout, phase_theory

__all__ = ["PhaseExplorer", "phase_explorer"]


class PhaseExplorer(Explorer):
    """Phase-diagram explorer (an ``ipywidgets.VBox``); see :func:`phase_explorer`."""

    kind, plot_class = "phase", PhasePlot
    theory_function, readout_function = staticmethod(phase_theory), staticmethod(phase_readout)


def phase_explorer(state: PhaseState | None = None, **overrides):
    """The phase-diagram explorer (an ``ipywidgets.VBox``).

    Sliders for delta and the point (gamma, theta); shows the two transition curves and reports the
    point's region, outliers and overlaps.
    """
    return PhaseExplorer(resolve_state(PhaseState, state, overrides))
