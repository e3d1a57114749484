"""Every live figure with a still gives a figure for print (the PDF edition shows it where the page embeds the
live figure), in its starting state."""

import matplotlib
import pytest

from attnlib.views import webexplorer

matplotlib.use("Agg")


@pytest.mark.parametrize("kind", webexplorer.KINDS)
def test_still_is_a_figure(kind):
    fig = webexplorer.KINDS[kind].still(webexplorer.payload(kind))
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes
    matplotlib.pyplot.close(fig)
