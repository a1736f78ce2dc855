"""The project's own CSV formats (LANDING.md B: directors, adverse, gazette, licences, ...).

One generic reader: a format is declared as column -> kind (``tables.project_layout``) and read by
:mod:`pipelines.ingest.delimited`. The rules LANDING B sets for every such file:

* UTF-8 (a BOM is tolerated), comma-separated, RFC 4180 quoting: a quoted field may hold
  commas, doubled quotes and line breaks (the row's line number is the line it starts on).
* One header row holding exactly the declared column names, in any order. A missing column
  fails the file with SourceFileError naming the file and the column; extra columns are
  ignored.
* An empty field is null. Dates are ISO ``YYYY-MM-DD``; ABNs (11 digits) and ACNs (9 digits)
  must pass their check digits when present (``0``/``00000000000`` mean none). A row with a
  bad value, or an empty key column (the schema's not-null columns), is quarantined.

These folders accumulate files rather than replace them, so every matching file is read
(``files.every_file_key``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pipelines.ingest.base import Batch, FileInfo, LandingFile
from pipelines.ingest.delimited import DelimitedSpec, declared_spec, read_delimited
from pipelines.ingest.tables import Layout


def spec(dataset: str, table: str, layout: Layout) -> DelimitedSpec:
    """The DelimitedSpec of a project-format file (``tables.project_layout``): the header
    names are the column names, every column is required in the header."""
    return declared_spec(
        dataset, table, layout, delimiter=",", quoted=True, date_format="YYYY-MM-DD"
    )


def parser(dataset: str, table: str, layout: Layout) -> Callable[[LandingFile], Iterator[Batch]]:
    """A single-file parser (for ``sources.each_file``) yielding ``Batch(tables={table: ...})``."""
    declared = spec(dataset, table, layout)

    def parse(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
        return read_delimited(file, declared, batch_rows)

    return parse


def file_info(file: LandingFile) -> FileInfo:
    """Project files carry no extract date in their name nor a declared record count."""
    return FileInfo()
