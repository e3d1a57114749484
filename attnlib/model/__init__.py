"""Layer 2, model: the finite model of the book, from its pieces to one :class:`~attnlib.model.setting.Setting`.

* :mod:`~attnlib.model.positional`: sign processes and their correlation R;
* :mod:`~attnlib.model.weights`: pooling weights, alpha/kappa and the optimum;
* :mod:`~attnlib.model.kurtosis`: the kurtosis of the pooled sign w^T xi (exact, or sampled);
* :mod:`~attnlib.model.limit`: :class:`~attnlib.model.limit.Limit`, the ratios the theory is a function of;
* :mod:`~attnlib.model.setting`: :class:`~attnlib.model.setting.Setting`, a finite setting (valid once built);
* :mod:`~attnlib.model.noise`, :mod:`~attnlib.model.frequencies` and :mod:`~attnlib.model.variants`: the
  model variants (noise laws and covariance, token frequencies, gathered in ``ModelOptions``);
* :mod:`~attnlib.model.generative`: the generative draw (vocabulary, tokens, population covariance);
* :mod:`~attnlib.model.pooling`: attention pooling (the sparse token-weight matrix, the pooled vectors);
* :mod:`~attnlib.model.k_classes`: more than two classes;
* :mod:`~attnlib.model.heads`: concatenated heads (:class:`~attnlib.model.heads.HeadsSetting`).

Imports only :mod:`attnlib.numerics` and :mod:`attnlib.theory`.
"""

from attnlib.model import (frequencies, generative, heads, k_classes, kurtosis, limit, noise, pooling, positional,
                           setting, variants, weights)

__all__ = ["positional", "weights", "kurtosis", "limit", "setting", "noise", "frequencies", "variants", "generative",
           "pooling", "k_classes", "heads"]
