"""Repository-wide pytest configuration.

Kernels started by nbval and by the swaps inherit this process's environment, on top of which it sets the
kernel environment of ``scripts/environments.py`` (no progress bars in outputs, one BLAS thread, a fixed hash
seed). ``make test`` runs nbval as another CPU would (``environments.OTHER_CPU``).

Under pytest-xdist (``make test`` runs ``--dist loadgroup --no-loadscope-reorder``) the unit of work is a group
(given to the scheduler by ``pytest_xdist_make_scheduler`` below: pytest-xdist 3.8 marks a group by renaming the
node id, which pytest 9 no longer lets it do, so its own grouping is silently lost):
a test file (so that module fixtures are computed once), a notebook under nbval, the swaps of one chapter
(marked by tests/test_swaps.py, so that one worker runs them one after another and the first fills the memo of
the chapter's simulations for the others), or one test of a file that is split (``SPLIT_FILES``). Groups are handed out in the order below, the longest first, so
that no long group starts last while the other core idles.
"""

import os

import pytest

from scripts.environments import KERNEL

os.environ.update(KERNEL)

# Files that take tens of seconds on their own, started right after the swaps and before the many short files:
# in the unit stage a fresh venv with pip, the benchmarks, dask and process pools; in the browser stage (where
# there are no swaps) the reading test and the offline test of every page, about a minute each, which start
# at once, one per worker, while the short groups fill in around them.
SLOW_FILES = ("tests/test_package.py", "tests/test_bench_smoke.py", "tests/test_scaleout.py",
              "tests/browser/test_reading_in_browser.py", "tests/browser/test_book_in_browser.py")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Group every test (see the module docstring) and order the groups: the chapters' swaps (the chapters
    with the most swaps first), the notebooks, the slow files, then the rest in collection order."""
    sizes: dict[str, int] = {}
    for item in items:
        groups = [m.args[0] for m in item.iter_markers("xdist_group") if m.args]
        if not groups:
            groups = [item.nodeid.split("::")[0]]
            item.add_marker(pytest.mark.xdist_group(groups[0]))
        item.stash[_GROUP] = groups[0]
        sizes[groups[0]] = sizes.get(groups[0], 0) + 1

    def rank(item):
        group = item.stash[_GROUP]
        if group.startswith("swaps-"):
            return 0, -sizes[group], group
        if group.endswith(".ipynb"):
            return 1, 0, ""
        if group in SLOW_FILES:
            return 2, SLOW_FILES.index(group), ""
        return 3, 0, ""

    items.sort(key=rank)


_GROUP = pytest.StashKey[str]()


# Files whose tests are groups of their own: each loads its own page in its own browser context, and together
# they would hold one worker for minutes while the other idles.
SPLIT_FILES = ("tests/browser/test_publication_in_browser.py",)


def _group_of(nodeid: str) -> str:
    """The group of a test: its chapter for a swap (the test id starts ``<chapter>/``), itself in a file of
    ``SPLIT_FILES``, else its file."""
    path, _, rest = nodeid.partition("::")
    if path == "tests/test_swaps.py" and "[" in rest and "/" in rest:
        return "swaps-" + rest[rest.index("[") + 1:].split("/", 1)[0]
    if path in SPLIT_FILES:
        return nodeid
    return path


def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadgroup``, a scheduler that hands out the groups of ``_group_of`` whole, in collection
    order (the order set above, with ``--no-loadscope-reorder``)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group_of(nodeid)

    return GroupScheduling(config, log)
