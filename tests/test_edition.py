"""One version: pyproject.toml (attnlib.__version__), CITATION.cff, CHANGELOG.md and the book's citation agree.

The footer of every HTML page and the PDF's title page take the version from ``_ext/edition.py``, which reads
it where pyproject.toml says it lives; the browser test checks the footer of the built pages.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("edition", ROOT / "_ext" / "edition.py")
edition = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("edition", edition)
_spec.loader.exec_module(edition)

#: A release heading of CHANGELOG.md: ``## [0.1.0] - 2026-12-02``.
RELEASE = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)


def _changelog_releases(text: str) -> list[tuple[str, str]]:
    return [(m["version"], m["date"]) for m in RELEASE.finditer(text)]


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_version_is_read_from_the_attribute_pyproject_names():
    import attnlib

    assert edition.book_version() == attnlib.__version__


def test_citation_carries_the_version_and_a_release_date():
    citation = _citation()
    assert str(citation["version"]) == edition.book_version()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(citation["date-released"]))


def test_changelog_newest_release_is_this_version_on_the_citation_date():
    releases = _changelog_releases((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert releases, "CHANGELOG.md has no '## [VERSION] - YYYY-MM-DD' heading"
    assert releases[0] == (edition.book_version(), str(_citation()["date-released"]))
    assert len({v for v, _ in releases}) == len(releases), "a version is released twice"


def test_changelog_heading_parser_rejects_other_shapes():
    assert _changelog_releases("## [0.1.0] - 2026-12-02\n## 0.0.9 (2026-11-01)\n") == [("0.1.0", "2026-12-02")]


def test_book_cites_this_version_and_links_the_pdf():
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = intro[intro.index("## Cite this book"):]
    assert re.search(r"version\s*=\s*\{" + re.escape(edition.book_version()) + r"\}", section)
    assert "{pdf-edition}" in section


def test_footer_template_shows_version_commit_date_and_pdf():
    template = (ROOT / "_ext" / "templates" / "edition-footer.html").read_text(encoding="utf-8")
    for field in ("e.version", "e.commit", "e.date", "pathto(e.pdf, 1)"):
        assert field in template


def test_static_version_wins_and_a_missing_attribute_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2.0.1"\n')
    assert edition.book_version(tmp_path) == "2.0.1"
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndynamic = ["version"]\n'
        '[tool.setuptools.dynamic]\nversion = {attr = "pkg.__version__"}\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text('VERSION = "1"\n')
    with pytest.raises(ValueError, match="pkg.__version__"):
        edition.book_version(tmp_path)
    (tmp_path / "pkg" / "__init__.py").write_text('__version__ = "1.2.3"\n')
    assert edition.book_version(tmp_path) == "1.2.3"
