"""One meaning per symbol of book/notation.md (issue 36, point 5), beside the notation checks of test_reading.py.

Each second meaning a symbol of the notation page was once given (``SECOND_MEANINGS``: chi for an exponent, Delta
for a weight jump, q for a Rayleigh quotient...) is a test case of its own, matched in every page of book/ (and,
for tau, in the explorers' help texts of attnlib/views), reported with file and line. Where the page was made true
by listing a symbol's forms (``LISTED``: s as an index, L for the block families, theta_g), the listing is
checked. A rule such as "Delta only as Delta_d" also catches a new second meaning, which a synthetic page shows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
PAGES = sorted(BOOK.glob("*.md"))

# Each second meaning: a pattern that must occur in no page, with the one meaning the symbol keeps and what
# replaced the other. A pattern that forbids every form of a letter but the listed ones (chi, Delta) also catches
# any new second meaning of that letter.
NOT_AFTER = r"(?<![\\A-Za-z])"
SECOND_MEANINGS = {
    "chi": (r"\\chi(?!\s*\^\s*\{?2\}?\s*_\s*\{?d)",
            "chi is only the chi-squared law chi^2_d; the window exponent is iota"),
    "Delta": (r"\\Delta(?!_\{?[d1]\}?(?![A-Za-z0-9{]))",
              "Delta is only the window width Delta_d (constant Delta_1); a weight jump is w^(ts) - w^infty"),
    "K": (r"\$K\$\s+(?:vocabular|draws|samples|sequences)", "K is the number of classes; other counts in words"),
    "q": (NOT_AFTER + r"q\(w\)|Rayleigh quotient \$q\b",
          "q is Zs/V; the Rayleigh quotient is alpha/kappa as a function of w"),
    "u": (NOT_AFTER + r"u\s*=\s*1/\\zeta|\\psi\(u\)|" + NOT_AFTER + r"u_t\s*\\in",
          "u is mu/||mu||; write 1/zeta, and a label indicator as 1_{k_t}"),
    "e_1": (r"e_1\^\\top|e_1\s*e_1|\$e_1\$ and \$E_0",
            "e_1 is the embedding at position 1 (or of token 1); a coordinate axis is 1_{i}"),
    "a": (NOT_AFTER + r"a_n\b|" + NOT_AFTER + r"a_\{n|" + NOT_AFTER + r"a\s*=\s*(?:\(Rw\)_b|\\sum|w\^\\top)|"
          + NOT_AFTER + r"a\^2|\\pm\s*a\b|slope \$a\$",
          "a is the attention a_ts only; the token-weight vector is w~_n, the label signal (Rw)_b"),
    "tau": (r"(?i)\btemperature\s+(?:of\b|tau\b|τ|\$)|\bat\s+temperature\b",
            "tau multiplies the scores: a score scale, not a temperature"),
}
SECOND_MEANINGS_RE = {name: (re.compile(p), why) for name, (p, why) in SECOND_MEANINGS.items()}
HELP_TEXTS = sorted((REPO / "attnlib" / "views").rglob("*.py"))  # the explorers' controls and their help
# Second meanings made true on the notation page by listing the forms (pattern that the page must hold).
LISTED = {
    "s": r"\*\*Indices\.\*\*[^\n]*\n?[^\n]*\$t\$ and \$s\$[^|]*positions",
    "L": r"^\| \$L\$ \|[^|]*prefix[^|]*suffix[^|]*block",
    "theta_g": r"^\| \$\\theta_g\$ \|",
}


def second_meanings(paths, names=tuple(SECOND_MEANINGS)) -> list[str]:
    """``file:line: match (why)`` for every occurrence of a second meaning among ``names`` in ``paths``."""
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in names:
                pattern, why = SECOND_MEANINGS_RE[name]
                match = pattern.search(line)
                if match:
                    found.append(f"{path.name}:{number}: {match.group(0)!r} ({why})")
    return found


@pytest.mark.parametrize("name", SECOND_MEANINGS)
def test_no_symbol_takes_a_second_meaning(name):
    paths = PAGES + (HELP_TEXTS if name == "tau" else [])
    found = second_meanings(paths, (name,))
    assert not found, f"{name} takes a second meaning (see book/notation.md):\n" + "\n".join(found)


@pytest.mark.parametrize("name", LISTED)
def test_the_notation_page_lists_every_form(name):
    text = (BOOK / "notation.md").read_text(encoding="utf-8")
    assert re.search(LISTED[name], text, flags=re.MULTILINE), (
        f"book/notation.md no longer lists the forms of {name} that make its one-meaning claim true")


def test_a_new_second_meaning_is_caught(tmp_path):
    page = tmp_path / "99_x.md"
    # a clean page: every symbol in its listed form
    page.write_text("The window is $\\Delta_d = \\Delta_1 d^{-1/3}$, $\\|q\\|^2 = \\chi^2_d/V$, keys $s\\le t$, "
                    "attention $a_{ts}$ and $c_n = E\\tilde w_n$.\n")
    assert not second_meanings([page])
    # each issue's second meaning, and new ones the rules were not written for (Delta_n, chi_T, a_v)
    bad = {"$\\chi$ the exponent": "chi", "a jump $\\Delta_{ts}$": "Delta", "a gap $\\Delta_n$": "Delta",
           "a rate $\\chi_T$": "chi", "$K$ vocabularies": "K", "the quotient $q(w)$": "q",
           "with $u = 1/\\zeta$": "u", "$S_0 + p e_1^\\top$": "e_1", "token weights $a_n$": "a",
           "weights $a_{n,v}$": "a", "signal $\\pm a\\,h$": "a", "at temperature tau": "tau"}
    for text, name in bad.items():
        page.write_text(f"Some prose with {text} in it.\n")
        found = second_meanings([page])
        assert found and all(f"({SECOND_MEANINGS[name][1]})" in f for f in found), (text, found)
