"""trigram_similarity against PostgreSQL's own pg_trgm similarity() on generated name pairs.

Starts a throwaway PostgreSQL server (127.0.0.1, a free port, a temporary data folder) and
compares a few hundred pairs to 6 decimals. Skipped only when no PostgreSQL binaries exist
(`.ci/run` installs them).
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.matching import normalise_name, trigram_similarity
from tests.postgres_server import PostgresServer, postgres_bin_dir, postgres_server

PAIR_COUNT = 400


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    if postgres_bin_dir() is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found: pg_trgm comparison skipped")
    with postgres_server() as server:
        yield server


# --- deterministic Australian company-name pairs --------------------------------------------

WORDS = [
    "ACME", "SMITH", "JONES", "NGUYEN", "BROWN", "SOUTHERN", "CROSS", "HARBOUR", "BRIDGE",
    "KANGAROO", "ISLAND", "OUTBACK", "MINING", "PLUMBING", "ELECTRICAL", "HOLDINGS", "GROUP",
    "INVESTMENTS", "TRUST", "FAMILY", "SUPER", "FUND", "BUILDING", "CONSTRUCTION", "SERVICES",
    "TRANSPORT", "LOGISTICS", "CAFE", "BAKERY", "PHARMACY", "MEDICAL", "DENTAL", "PARTNERS",
    "AUSTRALIA", "AUST", "NSW", "QLD", "WA", "PERTH", "SYDNEY", "MELBOURNE", "DARWIN", "HOBART",
    "A", "B", "J", "AB", "OZ", "NO", "1", "7", "24", "365", "2000",
    "CAFÉ", "MÜLLER", "CRÈME", "BRÛLÉE", "SEÑOR", "ØSTBY", "STRAßE", "ÉLAN", "Ångström",
]  # fmt: skip
LEGAL_FORMS = [
    "PTY LTD", "Pty. Ltd.", "PTY LIMITED", "PROPRIETARY LIMITED", "P/L", "LIMITED", "LTD",
    "INC", "INC.", "INCORPORATED", "CO-OPERATIVE LTD", "CO-OP", "N.L.", "",
]  # fmt: skip
PUNCTUATION = [" & ", "-", "'", ".", ", ", " (", ") ", "/", "  ", " - ", "!", "’", "_"]


def _company(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(1, 4))
    name = words[0]
    for word in words[1:]:
        name += rng.choice([" ", " ", " ", *PUNCTUATION]) + word
    if rng.random() < 0.2:
        name = "THE TRUSTEE FOR " + name
    form = rng.choice(LEGAL_FORMS)
    name = f"{name} {form}" if form else name
    return name.lower() if rng.random() < 0.15 else name


def _typo(rng: random.Random, name: str) -> str:
    if len(name) < 2:
        return name + "X"
    i = rng.randrange(len(name) - 1)
    kind = rng.randrange(4)
    if kind == 0:  # a letter dropped
        return name[:i] + name[i + 1 :]
    if kind == 1:  # two letters swapped
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    if kind == 2:  # a letter changed
        return name[:i] + rng.choice("AEIOUSTXZ0") + name[i + 1 :]
    return name[:i] + name[i] + name[i:]  # a letter doubled


def _variant(rng: random.Random, name: str) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return _typo(rng, name)
    if kind == 1:  # words reordered
        words = name.split()
        rng.shuffle(words)
        return " ".join(words)
    if kind == 2:  # another legal form
        return (normalise_name(name) or "") + " " + rng.choice(LEGAL_FORMS)
    if kind == 3:  # punctuation
        return name.replace(" ", rng.choice(PUNCTUATION), 1)
    if kind == 4:  # an unrelated name
        return _company(rng)
    return _typo(rng, _typo(rng, name))


def name_pairs(count: int = PAIR_COUNT) -> list[tuple[str, str]]:
    rng = random.Random(20240601)
    pairs = [
        ("word", "two words"),
        ("a", "a"),
        ("", ""),
        ("", "ACME"),
        ("---", "ACME"),
        ("7-ELEVEN", "7 ELEVEN STORES"),
        ("A.B.C. PTY LTD", "ABC PTY LTD"),
        ("O'BRIEN'S PLUMBING", "OBRIENS PLUMBING"),
    ]
    while len(pairs) < count:
        a = _company(rng)
        b = _variant(rng, a)
        if rng.random() < 0.3:  # the way the project uses it: on normalised names
            a, b = normalise_name(a) or "", normalise_name(b) or ""
        pairs.append((a, b))
    return pairs


def test_the_pairs_cover_the_interesting_cases() -> None:
    text = " ".join(a + " " + b for a, b in name_pairs())
    for needle in ("É", "Ü", "ß", "P/L", "&", "'", "2000", " A "):
        assert needle in text, needle


def test_same_as_postgres_similarity(postgres: PostgresServer, tmp_path: Path) -> None:
    pairs = name_pairs()
    csv_file = tmp_path / "pairs.csv"
    with csv_file.open("w", newline="", encoding="utf-8") as f:
        # quoted: an unquoted empty field would be NULL in COPY csv
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows((i, a, b) for i, (a, b) in enumerate(pairs))
    sql_file = tmp_path / "compare.sql"
    sql_file.write_text(
        "create extension if not exists pg_trgm;\n"
        "create temporary table pairs (id int primary key, a text not null, b text not null);\n"
        f"\\copy pairs from '{csv_file}' with (format csv)\n"
        "select id, similarity(a, b)::float8 from pairs order by id;\n",
        encoding="utf-8",
    )
    output = postgres.run_sql_file(sql_file)
    expected = {int(i): float(s) for i, s in (line.split("|") for line in output.splitlines())}
    assert len(expected) == len(pairs) == PAIR_COUNT

    mismatches = [
        (a, b, expected[i], ours)
        for i, (a, b) in enumerate(pairs)
        if abs((ours := trigram_similarity(a, b)) - expected[i]) > 1e-6
    ]
    assert not mismatches, mismatches[:20]
    # not a vacuous comparison: a spread of values, identical and disjoint pairs among them
    values = set(expected.values())
    assert len(values) > 50 and 0.0 in values and 1.0 in values
