"""Layer 4, studies: the analyses of one chapter each, built on the engine.

* :mod:`~attnlib.studies.downstream`, :mod:`~attnlib.studies.experiment`, :mod:`~attnlib.studies.classifiers`:
  the downstream task, its predictions, the experiment and the classifiers;
* :mod:`~attnlib.studies.finite_size`: finite-size estimators (variance by source, scaling collapse);
* :mod:`~attnlib.studies.token_mixing`: the bulk at a finite number of tokens;
* :mod:`~attnlib.studies.causal_attention`: finite-d causal attention against its limit;
* :mod:`~attnlib.studies.real_layer`: a real attention layer end to end;
* :mod:`~attnlib.studies.learning`: learned positional attention;
* :mod:`~attnlib.studies.k_class_sweep`: the Monte-Carlo sweep of the K-class model;
* :mod:`~attnlib.studies.agreement`: theory against simulation, setting by setting (:func:`attnlib.compare`);
* :mod:`~attnlib.studies.stacked_layers`: stacked causal attention layers end to end.

Imports only the layers below.
"""

from attnlib.studies import (agreement, causal_attention, classifiers, downstream, experiment, finite_size,
                             k_class_sweep, learning, real_layer, stacked_layers, token_mixing)

# ``agreement`` is a submodule as well (``import attnlib.studies.agreement``), left out of ``__all__``: the name
# is also its function ``agreement.agreement`` and the module ``attnlib.views.agreement`` (one name, one object).
__all__ = ["downstream", "experiment", "classifiers", "finite_size", "token_mixing", "causal_attention",
           "real_layer", "learning", "k_class_sweep", "stacked_layers"]
