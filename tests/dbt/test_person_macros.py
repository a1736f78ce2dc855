"""The SQL person-name macros agree with pipelines.matching.persons on a table of cases.

The macros (dbt_project/macros/persons.sql) are compiled by the real dbt (`dbt compile
--inline`) and run by DuckDB over every pair of names below, hand-written and generated;
each pair's SQL verdict and each name's SQL key must equal the Python ones.
"""

from __future__ import annotations

import random

import duckdb
import pytest
from test_dbt_build import run_dbt

from pipelines.matching import person_name_key, person_names_match

HAND_WRITTEN = [
    "SMITH, JOHN PAUL",
    "SMITH, JOHN",
    "SMITH, J",
    "SMITH, J P",
    "SMITH, JP",
    "SMITH, JO",
    "SMITH, JOHN PETER",
    "SMITH, JOHN P",
    "SMITH, JOHN Q",
    "SMITH, JOHN PAUL GEORGE",
    "SMITH, JOHN GEORGE PAUL",
    "SMITH, JOHN PAUL GEORGE RINGO",
    "SMITH, JOHN P G R STAR",
    "SMITH, JOHN A B C D E",
    "SMITH, PAUL JOHN",
    "SMITH, JANE",
    "smith ,  john  ",
    "SMITH,",
    "SMITH",
    "SMITH, JOHN, PAUL",
    ", JOHN",
    "",
    "John Paul Smith",
    "John Smith",
    "J Smith",
    "J. R. Smith",
    "John Peter Smith",
    "John George Paul Smith",
    "SMYTH, JOHN",
    "O'Brien, Mary-Anne",
    "OBRIEN, MARY",
    "Mary OBrien",
    "O’BRIEN, MARY ANNE",
    "SMITH-JONES, MARY",
    "Mary Smith-Jones",
    "Zoë Müller",
    "MÜLLER, ZOE",
    "MUELLER, ZOE",
    "Straße, Hans",
    "STRASSE, HANS",
    "Maria de la Cruz",
    "DE LA CRUZ, MARIA",
    "CRUZ, MARIA",
    "Van Nguyen",
    "NGUYEN, VAN",
    "NGUYEN, VAN A",
    "de la cruz",
    "A DE B DE C",
    "DE C, A B",
    "NGUYEN, THI\u00a0HOA",
    "LEE, WEI (DAVID)",
    "LEE, WEI DAVID",
    "LEE_WEI, DAVID",
]

SURNAMES = ["SMITH", "NGUYEN", "LEE"]
GIVEN = ["JOHN", "JANE", "JAMES", "PAUL", "PETER", "MARY", "ANNE", "ALI", "J", "P", "M", "A"]


def _generated(count: int, seed: int = 7) -> list[str]:
    """Names that collide a lot: few surnames, few given names, 0-4 middle names, initials."""
    rng = random.Random(seed)
    names = set()
    while len(names) < count:
        given = [rng.choice(GIVEN) for _ in range(rng.randint(1, 5))]
        names.add(f"{rng.choice(SURNAMES)}, {' '.join(given)}")
    return sorted(names)


NAMES = sorted(set(HAND_WRITTEN) | set(_generated(160)))

INLINE_SQL = """
with names as (
    select name as person_name from main.person_names
),
keyed as (
    {{ bvs.select_person_keys('names', 'person_name') }}
)
select
    a.person_name as name_a,
    b.person_name as name_b,
    a.person_surname as surname_a,
    a.person_given_names as given_a,
    coalesce(
        a.person_surname = b.person_surname
        and a.first_initial = b.first_initial
        and {{ bvs.person_given_names_match('a', 'b') }},
        false
    ) as is_match
from keyed as a
cross join keyed as b
"""


@pytest.fixture(scope="module")
def sql_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple]:
    work = tmp_path_factory.mktemp("person_macros")
    warehouse = work / "warehouse.duckdb"
    compiled = run_dbt("compile", warehouse, work, "--quiet", "--inline", INLINE_SQL)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    con = duckdb.connect(str(warehouse))
    try:
        con.execute("create table main.person_names (name varchar)")
        con.executemany("insert into main.person_names values (?)", [[n] for n in NAMES])
        rows = con.execute(compiled.stdout).fetchall()
    finally:
        con.close()
    return {(a, b): (surname, given, match) for a, b, surname, given, match in rows}


def _middle_count(name: str) -> int:
    return max(len(person_name_key(name)[1]) - 1, 0)


def test_every_pair_is_compared(sql_verdicts: dict[tuple[str, str], tuple]) -> None:
    assert len(sql_verdicts) == len(NAMES) ** 2
    assert sum(match for _, _, match in sql_verdicts.values()) > 3 * len(NAMES)  # not all False


def test_sql_key_equals_python_key(sql_verdicts: dict[tuple[str, str], tuple]) -> None:
    for name in NAMES:
        surname, given, _ = sql_verdicts[(name, name)]
        py_surname, py_given = person_name_key(name)
        assert (surname or "", tuple((given or "").split())) == (py_surname, py_given), name


def test_sql_match_equals_python_match(sql_verdicts: dict[tuple[str, str], tuple]) -> None:
    disagreements = [
        (a, b, match)
        for (a, b), (_, _, match) in sql_verdicts.items()
        # the SQL compares the first four middle names (macro person_middle_name_slots)
        if max(_middle_count(a), _middle_count(b)) <= 4 and match != person_names_match(a, b)
    ]
    assert disagreements == []


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param("SMITH, JOHN PAUL", "John Smith", True, id="middle name missing"),
        pytest.param("SMITH, JOHN PAUL", "John Peter Smith", False, id="conflicting middle"),
        pytest.param("SMITH, J", "John Smith", True, id="initial"),
        pytest.param("SMITH, JO", "John Smith", False, id="short name is not an initial"),
        pytest.param(
            "SMITH, JOHN PAUL GEORGE", "SMITH, JOHN GEORGE PAUL", False, id="middles reordered"
        ),
        pytest.param("SMITH", "SMITH, JOHN", False, id="surname alone matches nothing"),
    ],
)
def test_named_cases(
    sql_verdicts: dict[tuple[str, str], tuple], a: str, b: str, expected: bool
) -> None:
    assert sql_verdicts[(a, b)][2] is expected
    assert sql_verdicts[(b, a)][2] is expected
    assert person_names_match(a, b) is expected
