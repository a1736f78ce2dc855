"""The sample generator writes each landing file's header from its source's declaration
(pipelines.ingest.tables): a header is never written twice, so the files cannot drift from
what the parsers read."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bvs_sample import write_sample
from pipelines.ingest.files import discover
from pipelines.ingest.public_registers import ASX_LISTED
from pipelines.ingest.sources import SOURCES


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("landing")
    write_sample(root, scale=50, workers=1)
    return root


def _header(data: bytes, preamble_lines: int) -> tuple[str, ...]:
    text = data.decode("utf-16") if data[:2] == b"\xff\xfe" else data.decode("utf-8-sig")
    line = text.splitlines()[preamble_lines]
    return tuple(next(csv.reader(io.StringIO(line), delimiter="\t" if "\t" in line else ",")))


def test_every_landing_file_opens_with_its_declared_header(landing: Path) -> None:
    checked = set()
    for source in SOURCES.values():
        tables = list(source.tables.values())
        if len(tables) != 1 or not tables[0].layout.header:  # ABR XML, headerless prices
            continue
        (table,) = tables
        files = discover(landing / source.folder, source.patterns, source.snapshot_key)
        assert files, source.name
        preamble = ASX_LISTED.preamble_lines if source.name == "asx_listed" else 0
        for file in files:
            with file.open() as fh:
                head = fh.read(64 * 1024)
            assert _header(head, preamble) == table.layout.header, file.name
        checked.add(source.name)
    assert len(checked) == len(SOURCES) - 4  # all but ABR and the three price markets
