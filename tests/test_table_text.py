"""How tables print a measurement beside its prediction and a dimension (attnlib.views.tables)."""

import numpy as np
import pytest

from attnlib.views.tables import dimension_text, with_prediction


def test_with_prediction():
    assert with_prediction(1.23456, 1.2) == "1.23 (1.2)"
    assert with_prediction(0.5, 3) == "0.5 (3)"
    assert with_prediction(np.float64(0.123456), np.nan) == "0.123 (none)"
    assert with_prediction(0.123456, 0.5, digits=2) == "0.12 (0.5)"
    for bad in ("x", np.inf, [1.0, 2.0]):
        with pytest.raises(ValueError, match="measured and predicted"):
            with_prediction(bad, 1.0)


def test_dimension_text():
    assert dimension_text(100, 250) == "< 250"
    assert dimension_text(12_345, 250) == "12,000"
    assert dimension_text(3.4e7, 250) == "3.4e+07"
    assert dimension_text(1_000, 250, measured=1_010) == "1,000"
    assert dimension_text(1_000, 250, measured=2_000) == "1,000 (2,000)"
    assert dimension_text(100, 250, measured=200) == "< 250"
    for args, match in (((-1, 250), "d must"), ((10, 0), "smallest must")):
        with pytest.raises(ValueError, match=match):
            dimension_text(*args)
    with pytest.raises(ValueError, match="measured must"):
        dimension_text(10, 250, measured=np.nan)
