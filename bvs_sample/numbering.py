"""Identifiers as pure functions of a record index, so no pass needs another pass's memory.

Record ``r`` of the ABR sample (0 <= r < scale) owns two numbers:

* ``acn_for(r)``: an ACN drawn from the range 010 000 00x .. 699 999 81x. Companies in
  the ABR use ``acn_for(r)``; ASIC rows with no ABR record (deregistered companies, rows
  with no ABN, planted rows) use ``acn_for(scale + r)``.
* ``abn_body_for(r)``: a 9-digit ABN body from 700 000 000 .. 999 999 999, above every ACN,
  so an individual's ABN never equals a company's ``NN + ACN``. Business names held by ABNs
  that are not in the ABR sample use ``abn_body_for(scale + r)``.

Both maps are ``low + ((r * multiplier + offset) mod p) ** 3 mod p`` for a prime ``p`` with
``p % 3 == 2``: a bijection of [0, p), so injective for ``r < p``, and scrambled so
neighbouring records get unrelated numbers. The multiplier and offset depend on the seed,
so another seed gives other identifiers.
"""

from __future__ import annotations

import random

from pipelines.identifiers import abn_from_acn, abn_with_check_digits, acn_check_digit

ACN_LOW = 1_000_000  # first eight digits of the ACN: ACN_LOW + a number below ACN_PRIME
ACN_PRIME = 68_999_981
BODY_LOW = 700_000_000  # ABN body: BODY_LOW + a number below BODY_PRIME
BODY_PRIME = 299_999_957

# Two index ranges per map ([0, scale) and [scale, 2 * scale)) must fit below the prime.
MAX_SCALE = (ACN_PRIME - 100_000) // 2  # and room above 2 * scale for planted cases


def _scramble(index: int, prime: int, multiplier: int, offset: int) -> int:
    """A bijection of [0, prime): an affine step, then cubing (a bijection as prime % 3 == 2)."""
    return pow((index * multiplier + offset) % prime, 3, prime)


class Numbering:
    """The identifier maps for one seed."""

    def __init__(self, seed: int) -> None:
        mix = random.Random(f"bvs-sample-numbering:{seed}")
        self.acn_multiplier = mix.randrange(1, ACN_PRIME)
        self.acn_offset = mix.randrange(ACN_PRIME)
        self.body_multiplier = mix.randrange(1, BODY_PRIME)
        self.body_offset = mix.randrange(BODY_PRIME)

    def acn_first_eight(self, index: int) -> int:
        return ACN_LOW + _scramble(index, ACN_PRIME, self.acn_multiplier, self.acn_offset)

    def acn_for(self, index: int) -> str:
        first = f"{self.acn_first_eight(index):08d}"
        return f"{first}{acn_check_digit(first)}"

    def company_abn_for(self, index: int) -> str:
        return abn_from_acn(self.acn_for(index))

    def abn_body_for(self, index: int) -> str:
        number = BODY_LOW + _scramble(index, BODY_PRIME, self.body_multiplier, self.body_offset)
        return f"{number:09d}"

    def abn_for(self, index: int) -> str:
        return abn_with_check_digits(self.abn_body_for(index))
