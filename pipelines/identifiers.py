"""Australian business identifiers: ABN and ACN check digits.

ABN (11 digits): subtract 1 from the first digit, multiply each digit by its weight
(10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19), and the sum must be divisible by 89.

ACN (9 digits): weights 8..1 over the first eight digits; the check digit is
(10 - sum % 10) % 10. A company's ABN is "NN" + ACN, where NN makes the ABN valid.
"""

from __future__ import annotations

ABN_WEIGHTS = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
ACN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 1)

_NO_ABN = {"", "0", "00000000000"}


def clean_identifier(value: str | None) -> str | None:
    """Strip spaces; map the register's "no ABN" spellings (empty, 0, 00000000000) to None."""
    if value is None:
        return None
    cleaned = value.replace(" ", "").replace("\u00a0", "").strip()
    if cleaned in _NO_ABN or cleaned.strip("0") == "":
        return None
    return cleaned


def abn_is_valid(abn: str | None) -> bool:
    if abn is None or len(abn) != 11 or not abn.isdigit() or not abn.isascii():
        return False
    digits = [int(c) for c in abn]
    digits[0] -= 1
    return sum(d * w for d, w in zip(digits, ABN_WEIGHTS, strict=True)) % 89 == 0


def acn_check_digit(first_eight: str) -> int:
    total = sum(int(c) * w for c, w in zip(first_eight, ACN_WEIGHTS, strict=True))
    return (10 - total % 10) % 10


def acn_is_valid(acn: str | None) -> bool:
    if acn is None or len(acn) != 9 or not acn.isdigit() or not acn.isascii():
        return False
    return acn_check_digit(acn[:8]) == int(acn[8])


def abn_from_acn(acn: str) -> str:
    """The ABN a company receives: two check digits prefixed to its ACN."""
    return abn_with_check_digits(acn)


def abn_with_check_digits(body: str) -> str:
    """Prefix the two digits (10..99) that make ``NN + body`` a valid ABN (body: 9 digits)."""
    if len(body) != 9 or not body.isdigit():
        raise ValueError(f"ABN body must be 9 digits, got {body!r}")
    # weighted sum of the body digits with weights 3..19; the prefix NN contributes
    # (N1 - 1) * 10 + N2 = NN - 10, so NN = 10 + (-body_sum mod 89), always in 10..98
    body_sum = sum(int(c) * w for c, w in zip(body, ABN_WEIGHTS[2:], strict=True))
    return f"{10 + (-body_sum) % 89}{body}"


# SQL versions of the same rules, for checks that run inside DuckDB (and dbt macros).
# ``try_cast`` because DuckDB evaluates both sides of ``and``; a non-digit gives NULL -> false.
ABN_VALID_SQL = (
    "coalesce(length({col}) = 11 and regexp_full_match({col}, '[0-9]{{11}}') and ("
    + " + ".join(
        f"(try_cast(substr({{col}}, {i + 1}, 1) as integer){' - 1' if i == 0 else ''}) * {w}"
        for i, w in enumerate(ABN_WEIGHTS)
    )
    + ") % 89 = 0, false)"
)
ACN_VALID_SQL = (
    "coalesce(length({col}) = 9 and regexp_full_match({col}, '[0-9]{{9}}') and ((10 - ("
    + " + ".join(
        f"try_cast(substr({{col}}, {i + 1}, 1) as integer) * {w}" for i, w in enumerate(ACN_WEIGHTS)
    )
    + ") % 10) % 10) = try_cast(substr({col}, 9, 1) as integer), false)"
)


def abn_valid_sql(column: str) -> str:
    """A DuckDB boolean expression: ``column`` holds a valid ABN (column from an allow-list)."""
    return ABN_VALID_SQL.format(col=column)


def acn_valid_sql(column: str) -> str:
    return ACN_VALID_SQL.format(col=column)
