"""The shape of a provider's JSON, checked before a field is read.

A provider's answer is a stranger's data: each parser asks for the kind it reads (an
object, a list, a string, a number) with these helpers, and anything else is a
``ValueError`` that says what came instead ("'events' is an object, not a list"), which the
checker turns into the tile's N/A with that reason.
"""

from __future__ import annotations

import math
from typing import Any

_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
          int: "a number", float: "a number", type(None): "null"}  # fmt: skip


def kind(value: Any) -> str:
    """A JSON value's kind in words."""
    return _NAMES.get(type(value), type(value).__name__)


def _wrong(value: Any, wanted: str, what: str) -> ValueError:
    return ValueError(f"{what} is {kind(value)}, not {wanted}")


def obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong(value, "an object", what)
    return value


def array(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _wrong(value, "a list", what)
    return value


def objects(value: Any, what: str) -> list[dict[str, Any]]:
    """A list whose every item is an object."""
    items = array(value, what)
    for i, item in enumerate(items):
        obj(item, f"{what}[{i}]")
    return items


def text(value: Any, what: str, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _wrong(value, "a string", what)
    return value


def number(value: Any, what: str, *, optional: bool = True, low: float | None = None,
           high: float | None = None) -> float | None:  # fmt: skip
    """A JSON number (true and false are not numbers), within [low, high] when given."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _wrong(value, "a number", what)
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (
            f"{'-inf' if low is None else f'{low:g}'} to {'inf' if high is None else f'{high:g}'}"
        )
        raise ValueError(f"{what} is {value:g}, outside {bounds}")
    return float(value)


def flag(value: Any, what: str) -> bool:
    """true or false; absent (null) is false."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _wrong(value, "true or false", what)
    return value
