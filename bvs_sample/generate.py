"""Generate one chunk of the sample: one ABR XML file plus its share of the ASIC rows.

A chunk is the unit of parallel work. Its output depends only on (seed, chunk index, the
chunk's record range, extract date, the planted positions), never on which process runs
it, so the files are identical whatever the worker count. The ASIC company and business
name rows a chunk's records give rise to are written to part files that the caller
concatenates in chunk order. The records are drawn by the register families of
:mod:`bvs_sample.families` (:mod:`~bvs_sample.families.abr` and the ASIC and business-name
modules it draws with); this module runs the chunk and writes its files.
"""

from __future__ import annotations

from collections.abc import Callable

from bvs_sample.families.abr import AbrRecords
from bvs_sample.sinks import TextSink
from bvs_sample.tasks import ChunkResult, ChunkTask

FLUSH_EVERY = 2_000  # records between buffer flushes
REPORT_EVERY = 20_000  # records between progress reports


class ChunkGenerator(AbrRecords):
    """Draws the records of one chunk and writes them. One RNG seeded per chunk."""

    def run(self, report: Callable[[int], None] | None = None) -> ChunkResult:
        task = self.task
        result = ChunkResult(index=task.index, records=task.count + len(task.extra_abr))
        with (
            open(task.abr_path, "wb") as abr_fh,
            open(task.company_part, "wb") as co_fh,
            open(task.business_name_part, "wb") as bn_fh,
        ):
            abr = TextSink(abr_fh, task.compress)
            co = TextSink(co_fh, False)
            bn = TextSink(bn_fh, False)
            date = task.extract_date
            abr.add(
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                f"<Transfer><TransferInfo><FileSequenceNumber>{task.index + 1}"
                f"</FileSequenceNumber><RecordCount>{task.count + len(task.extra_abr):010d}</RecordCount>"
                f"<ExtractTime>{date.isoformat()}T03:{11 + task.index:02d}:13</ExtractTime>"
                "</TransferInfo>\n"
            )
            co_lines = 0
            bn_lines = 0
            for j in range(task.count):
                r = task.start + j
                record, co_rows, bn_rows = self.record(r, task.planted_abr.get(j))
                abr.add(record)
                kind = task.planted_abr.get(j)
                if kind is not None:
                    result.planted_abr.append((kind, j + 3))
                if co_rows:
                    for row in co_rows:
                        co.add(row)
                    co_lines += len(co_rows)
                if bn_rows:
                    for row in bn_rows:
                        bn.add(row)
                    bn_lines += len(bn_rows)
                kind = task.planted_company.get(j)
                if kind is not None:
                    co.add(self.planted_company_row(self.scale + r, kind))
                    co_lines += 1
                    result.planted_company.append((kind, co_lines))
                kind = task.planted_business_name.get(j)
                if kind is not None:
                    bn.add(self.planted_business_name_row(self.scale + r, kind))
                    bn_lines += 1
                    result.planted_business_name.append((kind, bn_lines))
                if j % FLUSH_EVERY == FLUSH_EVERY - 1:
                    abr.flush()
                    co.flush()
                    bn.flush()
                if report is not None and j % REPORT_EVERY == REPORT_EVERY - 1:
                    report(j + 1)
            for line in task.extra_abr:
                abr.add(line)
            for row in task.extra_company:
                co.add(row)
            for row in task.extra_business_name:
                bn.add(row)
            co_lines += len(task.extra_company)
            bn_lines += len(task.extra_business_name)
            abr.add("</Transfer>\n")
            abr.close()
            co.close()
            bn.close()
        if report is not None:
            report(task.count)
        result.abr_bytes = abr.raw_bytes
        result.abr_stored_bytes = abr.stored_bytes
        result.crc32 = abr.crc
        result.company_rows = co_lines
        result.business_name_rows = bn_lines
        result.counts = dict(self.counts)
        if self.reg is not None:
            result.register_rows = self.reg.close()
            result.register_samples = self.reg.samples
        return result


def generate_chunk(task: ChunkTask, report: Callable[[int], None] | None = None) -> ChunkResult:
    return ChunkGenerator(task).run(report)
