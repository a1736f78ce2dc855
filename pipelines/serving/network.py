"""Network analysis (docs/network.md): what up to 20 ABNs share, read from the serving snapshot.

For the requested entities (docs/network.md: at most 20 per request) the response lists

* **shared directors**: one person who is or was an officeholder (director or secretary,
  current or ceased) of two or more of them. Rows come from the ``network_officeholders``
  mart (the officeholder history the warehouse remembers, by ABN); two rows are the same
  person when their names match by the rule of ``pipelines.matching.persons`` (equal surname,
  compatible given names: ``J`` ~ ``JOHN``, a middle name may be missing on one side) and
  their birth dates do not contradict (equal when both are known) - the rule the phoenix
  links use. How rows are grouped into people is in ``group_people``.
* **shared addresses**: the registers give only the ABR business address state and
  postcode, so entities share an address when both are equal (``precision: "postcode"``).
* **phoenix links** of the requested entities (``marts.phoenix_links``), each marked
  ``within_request`` when the deregistered company is itself one of the requested entities
  (by ACN), when its director is a shared director of the request, or when another requested
  entity is linked to the same deregistered company.

Three lookups by ABN on the snapshot marts (``_by_abn``: ABNs as parameters) and the as-of
date; the grouping runs in Python over the requested entities' officeholder rows only. Errors are ``ServingError``
(a ``VerifyError``) with the HTTP status the API answers.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from pipelines.matching.persons import person_name_key, person_names_match
from pipelines.serving.market import ServingError
from pipelines.serving.verify import parse_abn

MAX_ABNS = 20  # docs/network.md (6): network analysis, at most 20 ABNs per request
ADDRESS_PRECISION = "postcode"  # the registers give the ABR state and postcode only
# verifications.status: the same words for the ABR status codes as the verify response
ABN_STATUS_WORDS = {"ACT": "Active", "CAN": "Cancelled"}

# Why a phoenix link is inside the request (phoenix_links[].within_request_reasons)
DEREGISTERED_COMPANY_REQUESTED = "deregistered_company_requested"
DIRECTOR_SHARED = "director_shared"
SAME_DEREGISTERED_COMPANY = "same_deregistered_company"


@dataclass(frozen=True)
class Office:
    """One officeholder row of a requested entity (a row of marts.network_officeholders)."""

    abn: str
    person_key: str | None
    person_name: str
    birth_date: dt.date | None
    role: str | None
    appointed_date: dt.date | None
    ceased_date: dt.date | None
    is_current: bool


def parse_abns(abns: str | Sequence[str]) -> list[str]:
    """The requested ABNs, normalised, in the order given, duplicates collapsed.

    A comma-separated string or a list (whose items may hold commas too); empty items are
    ignored. VerifyError 400 names a malformed ABN; ServingError 400 for none or more than
    MAX_ABNS distinct ABNs.
    """
    items = [abns] if isinstance(abns, str) else list(abns)
    pieces = [piece.strip() for item in items for piece in str(item).split(",")]
    parsed = list(dict.fromkeys(parse_abn(piece) for piece in pieces if piece))
    if not parsed:
        raise ServingError("give at least one ABN (network analysis takes 1 to 20)")
    if len(parsed) > MAX_ABNS:
        raise ServingError(
            f"network analysis takes at most {MAX_ABNS} ABNs per request; {len(parsed)} were"
            " given: split the list into requests of 20, or verify a larger list as a supplier"
            " ledger (bvs ledger import, Enterprise: /api/robot/ledgers)"
        )
    return parsed


def _iso(day: dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    result = con.execute(sql, list(params))
    names = [d[0] for d in result.description]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def _by_abn(select: str, abns: Sequence[str], *, sorted_by_abn: bool = False) -> str:
    """``select`` (fixed SQL text) narrowed to the ABNs, which go in as parameters.

    On a table written in ABN order (``network_officeholders``) one ``abn = ?`` branch per
    ABN: an equality is a real scan filter, so each branch reads one row group and only the
    matching rows' other columns. An ``in`` list is only a zone-map hint to DuckDB's scan,
    which then reads every column of every row group that might hold one of the ABNs (about
    3x slower for 20 ABNs at 5M rows); on an unsorted table it is still the better choice,
    one scan instead of one per ABN.
    """
    if sorted_by_abn:
        return " union all ".join(f"{select} where abn = ?" for _ in abns)
    return f"{select} where abn in ({', '.join('?' for _ in abns)})"


def _as_of(con: duckdb.DuckDBPyConnection) -> dt.date:
    rows = _rows(con, "select as_of from meta.snapshot", [])
    if not rows:
        raise ServingError("the snapshot records no as-of date", status=503)
    as_of: dt.date = rows[0]["as_of"]
    return as_of


# --- people ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Identity:
    """The offices listed under one normalised name and one birth date (or none)."""

    person_key: str
    birth_date: dt.date | None
    offices: tuple[Office, ...]

    @property
    def name(self) -> str:
        return self.offices[0].person_name


def _same_person(a: _Identity, b: _Identity) -> bool:
    """Names match (persons.person_names_match) and birth dates do not contradict."""
    if a.birth_date is not None and b.birth_date is not None and a.birth_date != b.birth_date:
        return False
    return person_names_match(a.name, b.name)


def _strength(a: _Identity, b: _Identity) -> int:
    """How sure a pair is (lower is surer): the same normalised name before an initial or a
    missing middle name, two known equal birth dates before an unknown one."""
    return (0 if a.person_key == b.person_key else 2) + (
        0 if a.birth_date is not None and b.birth_date is not None else 1
    )


def group_people(offices: Iterable[Office]) -> list[list[Office]]:
    """The offices grouped into people; each group's members are the same person pairwise.

    The match is not transitive (``SMITH, J`` matches ``SMITH, JOHN`` and ``SMITH, JAMES``;
    a row without a birth date matches rows born on two different days), so groups are built
    as cliques: rows with the same normalised name and birth date start together, then
    groups are merged along the surest pairs first (``_strength``) as long as every member
    of one is the same person as every member of the other. Finally a name that could
    belong to more than one group (``SMITH, J`` beside both ``SMITH, JOHN`` and ``SMITH,
    JAMES``) is added to every group it matches throughout, so each possible person shows
    all the offices that may be theirs; a group contained in another is dropped. Rows
    without a person_key (no given name) match nobody. Deterministic: identities are taken
    in (key, birth date) order.
    """
    listed: dict[tuple[str, dt.date | None], list[Office]] = defaultdict(list)
    for office in offices:
        if office.person_key is not None:
            listed[(office.person_key, office.birth_date)].append(office)
    identities = [
        _Identity(key, birth, tuple(listed[(key, birth)]))
        for key, birth in sorted(listed, key=lambda k: (k[0], k[1] is None, k[1] or dt.date.min))
    ]
    # candidate pairs only within a block of (surname, first initial), which every match shares
    blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
    block_of: dict[int, tuple[str, str]] = {}
    for index, identity in enumerate(identities):
        surname, given = person_name_key(identity.name)
        if surname and given:
            block_of[index] = (surname, given[0][:1])
            blocks[block_of[index]].append(index)
    same = {
        (i, j)
        for members in blocks.values()
        for n, i in enumerate(members)
        for j in members[n + 1 :]
        if _same_person(identities[i], identities[j])
    }
    pairs = sorted(same, key=lambda p: (_strength(identities[p[0]], identities[p[1]]), p))

    def fits(member: int, group: Iterable[int]) -> bool:
        return all((min(member, m), max(member, m)) in same for m in group)

    group_of = list(range(len(identities)))
    groups: dict[int, list[int]] = {i: [i] for i in range(len(identities))}
    for i, j in pairs:
        gi, gj = group_of[i], group_of[j]
        if gi == gj or not all(fits(m, groups[gj]) for m in groups[gi]):
            continue
        groups[gi].extend(groups.pop(gj))
        for m in groups[gi]:
            group_of[m] = gi
    people = [sorted(members) for _, members in sorted(groups.items())]
    for members in people:
        for candidate in blocks[block_of[members[0]]] if members[0] in block_of else []:
            if candidate not in members and fits(candidate, members):
                members.append(candidate)
    # a group inside another is dropped; groups never leave their block, so compare within it
    by_block: dict[tuple[str, str] | None, list[frozenset[int]]] = defaultdict(list)
    for person in dict.fromkeys(frozenset(members) for members in people):
        by_block[block_of.get(min(person))].append(person)
    return [
        [office for m in sorted(person) for office in identities[m].offices]
        for group in by_block.values()
        for person in group
        if not any(person < other for other in group)
    ]


def _display_name(offices: Sequence[Office]) -> str:
    """The fullest spelling: most given names, then the longest, then alphabetical."""
    return min(
        (o.person_name for o in offices),
        key=lambda name: (-len(person_name_key(name)[1]), -len(name), name),
    )


def _shared_directors(
    offices: Sequence[Office], order: dict[str, int]
) -> tuple[list[dict[str, Any]], set[tuple[str, str, dt.date | None]]]:
    """People who hold or held office in two or more requested entities; and the
    (abn, person_name, birth_date) of every office of theirs (phoenix links read it)."""
    shared: list[dict[str, Any]] = []
    shared_offices: set[tuple[str, str, dt.date | None]] = set()
    for person in group_people(offices):
        abns = sorted({o.abn for o in person}, key=order.__getitem__)
        if len(abns) < 2:
            continue
        births = {o.birth_date for o in person if o.birth_date is not None}
        links = sorted(
            person,
            key=lambda o: (
                order[o.abn],
                o.person_name,
                o.role or "",
                o.appointed_date or dt.date.min,
            ),
        )
        shared.append(
            {
                "person_name": _display_name(person),
                "birth_date": _iso(min(births)) if births else None,
                "abns": abns,
                "is_current": any(o.is_current for o in person),
                "links": [
                    {
                        "abn": o.abn,
                        "person_name": o.person_name,
                        "birth_date": _iso(o.birth_date),
                        "role": o.role,
                        "is_current": o.is_current,
                        "appointed_date": _iso(o.appointed_date),
                        "ceased_date": _iso(o.ceased_date),
                    }
                    for o in links
                ],
            }
        )
        shared_offices.update((o.abn, o.person_name, o.birth_date) for o in person)
    shared.sort(key=lambda p: (-len(p["abns"]), p["person_name"], p["birth_date"] or ""))
    return shared, shared_offices


# --- addresses -------------------------------------------------------------------------------


def _shared_addresses(
    entities: Sequence[dict[str, Any]], order: dict[str, int]
) -> list[dict[str, Any]]:
    """Entities with the same known ABR state and postcode (the only address given)."""
    places: dict[tuple[str, str], list[str]] = defaultdict(list)
    for entity in entities:
        if entity["state"] and entity["postcode"]:
            places[(entity["state"], entity["postcode"])].append(entity["abn"])
    shared = [
        {
            "state": state,
            "postcode": postcode,
            "precision": ADDRESS_PRECISION,
            "abns": sorted(abns, key=order.__getitem__),
        }
        for (state, postcode), abns in places.items()
        if len(abns) >= 2
    ]
    shared.sort(key=lambda a: (-len(a["abns"]), a["state"], a["postcode"]))
    return shared


# --- phoenix links ---------------------------------------------------------------------------


def _phoenix_links(
    links: Sequence[dict[str, Any]],
    entities: Sequence[dict[str, Any]],
    shared_offices: set[tuple[str, str, dt.date | None]],
) -> list[dict[str, Any]]:
    abns_by_acn: dict[str, list[str]] = defaultdict(list)
    for entity in entities:
        if entity["acn"]:
            abns_by_acn[entity["acn"]].append(entity["abn"])
    linked_abns: dict[str, set[str]] = defaultdict(set)
    for link in links:
        linked_abns[link["deregistered_acn"]].add(link["abn"])
    out = []
    for link in links:
        requested_as = [
            a for a in abns_by_acn.get(link["deregistered_acn"], []) if a != link["abn"]
        ]
        reasons = []
        if requested_as:
            reasons.append(DEREGISTERED_COMPANY_REQUESTED)
        if (link["abn"], link["person_name"], link["birth_date"]) in shared_offices:
            reasons.append(DIRECTOR_SHARED)
        if linked_abns[link["deregistered_acn"]] - {link["abn"]}:
            reasons.append(SAME_DEREGISTERED_COMPANY)
        out.append(
            {
                "abn": link["abn"],
                "person_name": link["person_name"],
                "birth_date": _iso(link["birth_date"]),
                "deregistered_acn": link["deregistered_acn"],
                "deregistered_company_name": link["deregistered_company_name"],
                "deregistration_date": _iso(link["deregistration_date"]),
                "officeholder_role": link["officeholder_role"],
                "within_request": bool(reasons),
                "within_request_reasons": reasons,
                "deregistered_company_abns": requested_as,
            }
        )
    return out


# --- the response ----------------------------------------------------------------------------


def network(con: duckdb.DuckDBPyConnection, abns: str | Sequence[str]) -> dict[str, Any]:
    """The network analysis of up to 20 ABNs from an open snapshot connection."""
    requested = parse_abns(abns)
    order = {abn: i for i, abn in enumerate(requested)}
    as_of = _as_of(con)
    found = _rows(
        con,
        _by_abn(
            "select abn, legal_name, abn_status, acn, state, postcode from marts.entities",
            requested,
        ),
        requested,
    )
    if not found:
        raise ServingError(
            f"none of the ABNs was found in the register: {', '.join(requested)}", status=404
        )
    found.sort(key=lambda e: order[e["abn"]])
    found_abns = [e["abn"] for e in found]
    found_set = set(found_abns)
    offices = [
        Office(**row)
        for row in _rows(
            con,
            _by_abn(
                "select abn, person_key, person_name, birth_date, role, appointed_date,"
                " ceased_date, is_current from marts.network_officeholders",
                found_abns,
                sorted_by_abn=True,
            ),
            found_abns,
        )
    ]
    links = _rows(
        con,
        _by_abn(
            "select abn, person_name, birth_date, deregistered_acn, deregistered_company_name,"
            " deregistration_date, officeholder_role from marts.phoenix_links",
            found_abns,
        ),
        found_abns,
    )
    links.sort(
        key=lambda r: (
            order[r["abn"]],
            -r["deregistration_date"].toordinal(),
            r["deregistered_acn"],
            r["person_name"],
        )
    )
    office_counts: dict[str, int] = defaultdict(int)
    for office in offices:
        office_counts[office.abn] += 1
    shared_directors, shared_offices = _shared_directors(offices, order)
    return {
        "abns": requested,
        "as_of": as_of.isoformat(),
        "entities": [
            {
                "abn": e["abn"],
                "entity": e["legal_name"],
                "status": ABN_STATUS_WORDS.get(e["abn_status"], e["abn_status"]),
                "acn": e["acn"],
                "state": e["state"],
                "postcode": e["postcode"],
                "officeholder_count": office_counts[e["abn"]],
            }
            for e in found
        ],
        "not_found": [abn for abn in requested if abn not in found_set],
        "shared_directors": shared_directors,
        "shared_addresses": _shared_addresses(found, order),
        "phoenix_links": _phoenix_links(links, found, shared_offices),
    }
