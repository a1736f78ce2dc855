"""Generated words spell no obscenity (issue 22): a draw that would is changed, every other
draw gives the word it always gave."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from bvs_sample import words as W


def _draws(*indices: tuple[int, int]) -> Callable[[], float]:
    """An rnd() returning the draws that pick the given (index, of how many) in turn."""
    values: Iterator[float] = iter((i + 0.5) / n for i, n in indices)
    return lambda: next(values)


def _syllable(onset: str, nucleus: str, coda: str) -> list[tuple[int, int]]:
    return [
        (W.ONSETS.index(onset), len(W.ONSETS)),
        (W.NUCLEI.index(nucleus), len(W.NUCLEI)),
        (W.CODAS.index(coda), len(W.CODAS)),
    ]


def test_a_draw_spelling_an_obscenity_gives_another_word() -> None:
    word = W.syllable_word(_draws(*_syllable("SH", "I", "")), 1, "T")  # "SHI" + "T"
    assert word != "SHIT" and word.endswith("T") and not W.is_obscene(word)
    word = W.syllable_word(_draws(*_syllable("CL", "I", "")), 1, "T")  # not in the word alone
    assert not W.is_obscene(word)
    joined = W.syllable_word(_draws(*_syllable("C", "U", "NT")), 1)
    assert not W.is_obscene(joined)
    across = W.syllable_word(_draws(*_syllable("K", "I", "N")), 1, prefix="FU")  # FU|KIN
    assert not W.is_obscene("FU" + across)


def test_a_clean_draw_gives_the_word_it_always_gave() -> None:
    assert W.syllable_word(_draws(*_syllable("B", "A", "N"), *_syllable("D", "OO", "")), 2) == (
        "BANDOO"
    )


def test_no_generated_word_is_obscene() -> None:
    rng = random.Random(7)
    for _ in range(50_000):
        ending = W.SURNAME_ENDINGS[int(rng.random() * len(W.SURNAME_ENDINGS))]
        assert not W.is_obscene(W.syllable_word(rng.random, 1 + int(rng.random() * 3), ending))


def test_the_filter_reads_across_case_and_spaces() -> None:
    assert W.is_obscene("Holy shit Pty Ltd") and W.is_obscene("S H I T")
    assert not W.is_obscene("BANDOO HOLDINGS PTY LTD")
