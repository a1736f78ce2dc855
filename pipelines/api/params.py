"""What the query and path parameters accept, declared in the OpenAPI document and enforced
by FastAPI before a handler runs, so that an input the document allows is one the handler
serves (a 200 or a 404), and one it refuses is a 400 the document foresaw.

The patterns use ASCII classes only: FastAPI checks them with pydantic's Rust regex, a
client or a generator reads them as ECMA or Python regex, and those agree on ASCII. What a
pattern cannot say is in a ``format`` of the document's own:

* ``abn``: 11 digits (spaces ignored) whose check digits are valid (the ABR's modulus 89);
  an ABN whose check digits fail is a 400 all the same;
* ``abn-list``: 1 to 20 of them, comma-separated.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable

from pipelines.settings import DBT_PROJECT_DIR

ABN_PATTERN_BODY = r" *(?:[0-9] *){11}"
ABN_PATTERN = f"^{ABN_PATTERN_BODY}$"
ABN_FORMAT = "abn"


def abn_list_pattern(most: int) -> str:
    return f"^{ABN_PATTERN_BODY}(?:,{ABN_PATTERN_BODY}){{0,{most - 1}}}$"


ABN_LIST_FORMAT = "abn-list"

# ASX tickers, crypto symbols (BTC), forex pairs (AUD/USD or AUDUSD), any case
TICKER_PATTERN = r"^ *[A-Za-z0-9/]*[A-Za-z0-9][A-Za-z0-9/]* *$"
TICKER_MAX_LENGTH = 32


def any_case(words: Iterable[str]) -> str:
    """A pattern matching exactly one of ``words``, in any case (``asx``, ``ASX``, ``Asx``)."""
    alternatives = (
        "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word) for word in words
    )
    return f"^(?:{'|'.join(alternatives)})$"


def check_ids() -> list[str]:
    """The check ids of the published catalogue (``marts.checks``, from the dbt seed)."""
    with (DBT_PROJECT_DIR / "seeds" / "check_weights.csv").open(newline="") as f:
        return [row["check_id"] for row in csv.DictReader(f)]


def check_list_pattern(ids: Iterable[str]) -> str:
    """Comma-separated check ids, spaces around them and empty items ignored."""
    one = f"(?:{'|'.join(sorted(ids))})"
    return f"^ *(?:{one} *)?(?:, *(?:{one} *)?)*$"


# a search must leave a letter or digit once normalised: an ASCII one, at least
SEARCH_PATTERN = "[A-Za-z0-9]"


# ------------------------------------------------------------------ refusal messages
# A value FastAPI refuses for its pattern is explained as the serving layer would explain it
# ("an ABN is 11 digits", "the ABN checksum fails", "unknown tier"), not with the pattern.


def _domain_message(parse: Callable[[str], object], value: str) -> str | None:
    from pipelines.serving.market import ServingError
    from pipelines.serving.verify import VerifyError

    try:
        parse(value)
    except (ServingError, VerifyError) as exc:
        return str(exc.message)
    return None


def _abn(value: str) -> str | None:
    from pipelines.serving.verify import parse_abn

    return _domain_message(parse_abn, value)


def _abns(value: str) -> str | None:
    from pipelines.serving.network import MAX_ABNS, parse_abns

    return _domain_message(parse_abns, value) or (
        f"give 1 to {MAX_ABNS} comma-separated ABNs of 11 digits each"
    )


def _checks(value: str) -> str:
    known = check_ids()
    unknown = [c.strip() for c in value.split(",") if c.strip() and c.strip() not in known]
    return f"unknown check id(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}"


def _query(value: str) -> str | None:
    from pipelines.serving.search import DEFAULT_LIMIT
    from pipelines.serving.search import _validate as validate_query

    return _domain_message(lambda q: validate_query(q, DEFAULT_LIMIT), value) or (
        "the search query needs an ASCII letter or digit"
    )


def _one_of(what: str, words: Iterable[str]) -> Callable[[str], str]:
    return lambda value: f"unknown {what} {value!r}; one of {', '.join(words)}"


def explain(pattern: str, value: object) -> str | None:
    """Why ``value`` does not match ``pattern`` (a pattern of this module), or None."""
    from pipelines.serving.market import MARKETS, TIERS
    from pipelines.serving.network import MAX_ABNS

    reasons: dict[str, Callable[[str], str | None]] = {
        ABN_PATTERN: _abn,
        abn_list_pattern(MAX_ABNS): _abns,
        check_list_pattern(check_ids()): _checks,
        TICKER_PATTERN: lambda v: f"malformed ticker {v!r}",
        any_case(MARKETS): _one_of("market", MARKETS),
        any_case(TIERS): _one_of("tier", TIERS),
        SEARCH_PATTERN: _query,
    }
    reason = reasons.get(pattern)
    return reason(str(value)) if reason is not None else None
