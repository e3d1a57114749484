"""The explorers' figures as pure functions of a state, drawn with matplotlib alone (no ipywidgets).

Each of ``spectrum``, ``phase`` and ``weights`` holds a state dataclass, ``*_theory(state)`` (what is drawn),
a plot class and ``*_figure(state)`` (the figure); :mod:`~attnlib.views.figures.canvas` holds the plumbing.
``centroid`` draws the recovery target h = mu + q of one vocabulary (chapter 1).
The JupyterLab explorers (:mod:`attnlib.views.explorers`) redraw these figures when a control moves; the
HTML book's live explorers (:mod:`attnlib.views.webexplorer`) draw their stills from them.
"""

from attnlib.views.figures import canvas, centroid, phase, spectrum, weights

# ``weights`` is a submodule as well (``import attnlib.views.figures.weights``), left out of ``__all__``: the name
# is ``attnlib.weights`` (the model's pooling weights) everywhere else (one name, one object).
__all__ = ["canvas", "centroid", "phase", "spectrum"]
