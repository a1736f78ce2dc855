"""Entity-name normalisation: the Python twin of the dbt macro `normalise_name`.

The steps and their order follow dbt_project/macros/normalise_name.sql; the cases in the
`entity_names_normalise_name_cases` dbt unit test are the shared reference (tests/matching
reads them from the YAML, so the two cannot drift apart).
"""

from __future__ import annotations

import re
import unicodedata

# Step 7 of the macro: legal forms, matched as whole words at the end of the name.
LEGAL_FORMS = (
    "PTY",
    "PROPRIETARY",
    "LTD",
    "LIMITED",
    "INC",
    "INCORPORATED",
    "CO OPERATIVE",
    "COOPERATIVE",
    "CO OP",
    "COOP",
    "P L",
    "NL",
    "N L",
)

_APOSTROPHES = re.compile("['\u2019\u2018`]")
_SPACES = re.compile(" {2,}")
_TRUSTEE_OF = re.compile(r"^.* (ATF|AS TRUSTEE FOR) ")
_TRUSTEE_FOR = re.compile(r"^(THE )?TRUSTEE FOR ")
_LEGAL_FORM_SUFFIX = re.compile("( (" + "|".join(LEGAL_FORMS) + "))+$")

# Steps 8-10 of the macro (normalise_name.sql): the words many unrelated names share, which would otherwise
# carry most of a short name's trigrams (`THE TRAN FAMILY TRUST` and `THE CAMPBELL FAMILY
# TRUST` scored 0.57): a leading THE, a strata scheme's owners, a designator at the end.
_THE_PREFIX = re.compile("^THE ")
_STRATA_PREFIX = re.compile("^OWNERS (STRATA PLAN|CORPORATION PLAN|CORPORATION)( NO)? ")
# In this order; each needs a word before it, so a name is never reduced to its token.
DESIGNATORS = (
    ("(FAMILY )?(SUPERANNUATION|SUPER) FUND", "SF"),
    ("FAMILY TRUST", "FT"),
    ("INVESTMENT TRUST", "IT"),
    ("UNIT TRUST", "UT"),
    ("DISCRETIONARY TRUST", "DT"),
    ("TRUST", "TR"),
    ("PARTNERSHIP", "PS"),
)
_DESIGNATOR_SUFFIXES = tuple(
    (re.compile(" (" + phrase + ")$"), " " + token) for phrase, token in DESIGNATORS
)


def fold_accents(text: str) -> str:
    """Drop combining marks after canonical decomposition (DuckDB's `strip_accents`)."""
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", stripped)


def _letters_digits_spaces(text: str) -> str:
    """Every run of characters that are not letters, digits or a space -> one space.

    The macro's `[^\\p{L}\\p{N} ]+`: Unicode general categories L* and N*.
    """
    out: list[str] = []
    in_run = False
    for c in text:
        if c == " " or unicodedata.category(c)[0] in "LN":
            out.append(c)
            in_run = False
        elif not in_run:
            out.append(" ")
            in_run = True
    return "".join(out)


def clean_characters(text: str) -> str:
    """Steps 1-5 of the macro: upper case, accents, `&`, apostrophes, punctuation, spaces."""
    # Simple (one-to-one) upper case as SQL engines do: `ﬁ` stays, `ß` is handled next.
    s = "".join(u if len(u := c.upper()) == 1 else c for c in text)
    s = s.replace("ß", "SS").replace("ẞ", "SS")
    s = fold_accents(s).replace("&", " AND ")
    s = _APOSTROPHES.sub("", s)
    s = _letters_digits_spaces(s)
    return _SPACES.sub(" ", s).strip(" ")


def normalise_name(name: str | None) -> str | None:
    """The comparable form of an Australian entity name; None when nothing is left.

    >>> normalise_name("Smith & Sons Pty. Ltd.")
    'SMITH AND SONS'
    >>> normalise_name("The Trustee for the Jones Family Trust")
    'JONES FT'
    """
    if name is None:
        return None
    s = clean_characters(name)
    # 6: a trustee prefix (up to the last ` ATF `), then a leading `THE TRUSTEE FOR `
    s = _TRUSTEE_OF.sub("", s, count=1)
    s = _TRUSTEE_FOR.sub("", s, count=1)
    # 7: legal forms at the end, repeatedly (the leading space keeps `LIMITED` alone whole)
    s = _LEGAL_FORM_SUFFIX.sub("", s, count=1)
    # 8-10: a leading THE, a strata scheme's owners -> SP, a designator -> its token
    s = _THE_PREFIX.sub("", s, count=1)
    s = _STRATA_PREFIX.sub("SP ", s, count=1)
    for suffix, token in _DESIGNATOR_SUFFIXES:
        s = suffix.sub(token, s, count=1)
    # 11
    s = s.strip(" ")
    return s or None
