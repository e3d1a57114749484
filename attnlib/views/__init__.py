"""Layer 5, views: what a reader sees.

* :mod:`~attnlib.views.plotting`: figures (theory over simulation, one style);
* :mod:`~attnlib.views.tables`: rounded numbers and Markdown tables;
* :mod:`~attnlib.views.controls`: the explorers' controls, declared once;
* :mod:`~attnlib.views.agreement`: theory against simulation as a table and a figure (:func:`attnlib.compare`);
* imported on demand: :mod:`~attnlib.views.explorers` (JupyterLab explorers, needs ipywidgets) and
  :mod:`~attnlib.views.webexplorer` (live explorers of the HTML book, needs IPython; never ipywidgets), with
  :mod:`~attnlib.views.weboverlays` and :mod:`~attnlib.views.webstills`.

Imports any layer below; nothing imports it.
"""

from attnlib.views import agreement, controls, plotting, tables

# ``agreement`` is a submodule as well (``import attnlib.views.agreement``), left out of ``__all__``: the name is
# also the module ``attnlib.studies.agreement`` and its function (one name, one object).
__all__ = ["plotting", "tables", "controls"]
