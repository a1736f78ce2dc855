"""The following week's landing folder, written from a week's landing folder.

``write_next_week(from_dir, out_dir, change=0.005, seed=1)`` republishes what a real week
changes, seven days after the extract date of ``from_dir`` (docs/sample-generator.md, "The
next week"):

* ``abr/``: the whole ABN Bulk Extract again, in the same layout (the two
  ``public_split_*`` zips, or plain ``*PublicNN.xml`` files), members and ``ExtractTime``
  dated seven days later. A share ``change`` of the records is changed, one way each: the ABN
  cancelled, GST registration started or ended, the legal name or a trading name changed
  (``recordLastUpdatedDate`` set to the day of the change). New ABNs (``change / 4`` of the
  records, half sole traders and half new companies) are appended to each file, with its
  ``RecordCount`` raised to match.
* ``asic_companies/``: the company extract again (named by the new date's month), a share
  ``change`` of the registered companies moved to DRGD, SOFF or EXAD ("Modified since last
  report" = Y), and a row for each new company of the ABR.
* ``gazette/``: a new ``notices_YYYYMMDD.csv`` beside the old one: a notice for each company
  deregistered or put under external administration.
* ``adverse/``: a new ``<REGULATOR>_YYYYMMDD.csv`` per regulator of the old folder, a few
  records dated in the new week.
* Everything else is left as it was (hard links, or copies across file systems), so the
  loader's "same files, no work" finds it unchanged.

Whether a record changes, and how, is a function of (seed, its ABN or ACN, the new extract
date), so the same inputs and seed give the same bytes. Everything streams, record by record:
memory holds the new companies and the changed companies only (about ``change`` of them).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import os
import random
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from bvs_sample.numbering import Numbering
from bvs_sample.words import FEMALE_GIVEN, MALE_GIVEN, SURNAMES
from pipelines.identifiers import abn_from_acn

DEFAULT_CHANGE = 0.005  # one record in two hundred
NEW_ABN_SHARE = 0.25  # new ABNs per changed record
# how a changed ABR record changes (kinds that do not apply to the record are skipped)
ABR_KINDS = (
    ("cancelled", 0.25),
    ("gst_started", 0.2),
    ("gst_ended", 0.15),
    ("legal_name", 0.2),
    ("trading_name", 0.2),
)
COMPANY_KINDS = (("DRGD", 0.4), ("SOFF", 0.3), ("EXAD", 0.3))
ADVERSE_ACTIONS = {
    "ACCC": "INFRINGEMENT_NOTICE",
    "FWO": "COMPLIANCE_NOTICE",
    "NDIS_COMMISSION": "COMPLIANCE_NOTICE",
}
ADVERSE_PER_REGULATOR = 3  # "a few" new records per regulator and week
STATES = {
    "NSW": (2000, 2599), "VIC": (3000, 3999), "QLD": (4000, 4999), "SA": (5000, 5799),
    "WA": (6000, 6797), "TAS": (7000, 7799), "ACT": (2600, 2618), "NT": (800, 899),
}  # fmt: skip
# Index ranges of the identifier maps (bvs_sample.numbering) for a week's new numbers,
# above what a first week of scale up to 22 M uses ([0, 2 * scale) and the planted cases).
NEW_ABN_BASE = 80_000_000  # + (week % 2000) * WEEK_BLOCK: below BODY_PRIME (299,999,957)
NEW_ACN_BASE = 45_000_000  # + (week % 230) * WEEK_BLOCK: below ACN_PRIME (68,999,981)
WEEK_BLOCK = 100_000

_DATED = re.compile(r"(?<!\d)(\d{8})(?!\d)")
_ABN = re.compile(r"<ABN ([^>]*)>(\d{11})</ABN>")
_LAST_UPDATED = re.compile(r'recordLastUpdatedDate="\d{8}"')
_GST = re.compile(r"<GST [^>]*/>")
_GST_STATUS = re.compile(r'<GST [^>]*status="([A-Z]+)"')
_MAIN_NAME = re.compile(
    r"(<MainEntity><NonIndividualName type=\"MN\"><NonIndividualNameText>)([^<]*)(<)"
)
_FAMILY = re.compile(r"(<FamilyName>)([^<]*)(</FamilyName>)")
_TRADING = re.compile(r'(<NonIndividualName type="TRD"><NonIndividualNameText>)([^<]*)(<)')
_HEADER_COUNT = re.compile(r"<RecordCount>(\d+)</RecordCount>")
_HEADER_TIME = re.compile(r"<ExtractTime>(\d{4}-\d{2}-\d{2})")


@dataclass
class NextWeekSummary:
    extract_date: str
    as_of: str
    change: float
    seed: int
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


def _draw(seed: int, key: str, date: dt.date) -> random.Random:
    """The RNG of one record's change: a function of seed, key and the new extract date."""
    digest = hashlib.blake2b(f"{seed}:{date:%Y%m%d}:{key}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _unit(seed: int, key: str, date: dt.date) -> float:
    digest = hashlib.blake2b(f"{seed}:{date:%Y%m%d}:{key}:u".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def _pick(rng: random.Random, kinds: tuple[tuple[str, float], ...]) -> str:
    names, weights = zip(*kinds, strict=True)
    return rng.choices(names, weights)[0]


def _xml(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&apos;")
    )


class _Week:
    def __init__(self, from_dir: Path, out_dir: Path, change: float, seed: int) -> None:
        if not 0 <= change <= 1:
            raise ValueError(f"--change must be a share between 0 and 1, not {change}")
        planted = from_dir / "_sample" / "planted.json"
        if not planted.exists():
            raise ValueError(f"{from_dir}: no _sample/planted.json (not a `bvs sample` folder)")
        meta = json.loads(planted.read_text())
        previous = meta.get("next_week", {}).get("extract_date") or meta["extract_date"]
        self.old = dt.date.fromisoformat(previous)
        self.new = self.old + dt.timedelta(days=7)
        self.numbering = Numbering(int(meta["seed"]))  # the first week's maps: no collisions
        self.meta = meta
        self.from_dir, self.out_dir, self.change, self.seed = from_dir, out_dir, change, seed
        week = self.new.toordinal() // 7
        self.next_abn = NEW_ABN_BASE + (week % 2000) * WEEK_BLOCK
        self.next_acn = NEW_ACN_BASE + (week % 230) * WEEK_BLOCK
        self.new_companies: list[tuple[str, str, str, dt.date]] = []  # name, acn, abn, date
        self.changed_companies: list[tuple[str, str, str, str, dt.date]] = []
        self.entities: list[tuple[str, str]] = []  # (abn, name) changed this week, for adverse
        self.quiet: list[tuple[str, str]] = []  # (abn, name) unchanged this week, for adverse
        self.summary = NextWeekSummary(
            self.new.isoformat(), (self.new + dt.timedelta(days=2)).isoformat(), change, seed
        )

    def day(self, rng: random.Random) -> dt.date:
        """A day of the new week (after the old extract, up to the new one)."""
        return self.old + dt.timedelta(days=rng.randint(1, 7))

    # ------------------------------------------------------------------------- ABR

    def abr(self) -> None:
        source, target = self.from_dir / "abr", self.out_dir / "abr"
        target.mkdir(parents=True, exist_ok=True)
        old_tag = f"{self.old:%Y%m%d}"
        for path in sorted(source.iterdir()):
            if path.suffix.lower() == ".zip":
                self.abr_zip(path, target / path.name.replace(old_tag, f"{self.new:%Y%m%d}"))
            elif path.suffix.lower() == ".xml" and old_tag in path.name:
                out = target / path.name.replace(old_tag, f"{self.new:%Y%m%d}")
                with open(path, "rb") as src, open(out, "wb") as dst:
                    self.abr_file(src, dst)
            # files of other weeks are not republished

    def abr_zip(self, path: Path, out: Path) -> None:
        when = dt.datetime.combine(self.new, dt.time(3, 11, 12)).timetuple()[:6]
        with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
            for member in src.infolist():
                name = member.filename.replace(f"{self.old:%Y%m%d}", f"{self.new:%Y%m%d}")
                info = zipfile.ZipInfo(name, date_time=when)  # type: ignore[arg-type]
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o100644 << 16
                big = member.file_size * 1.1 >= zipfile.ZIP64_LIMIT
                with src.open(member) as fin, dst.open(info, "w", force_zip64=big) as fout:
                    self.abr_file(fin, fout)

    def abr_file(self, src: IO[bytes], dst: IO[bytes]) -> None:
        out = _Buffered(dst)
        new_records: list[str] = []
        for raw in src:
            line = raw.decode("utf-8")
            if line.startswith("<ABR "):
                out.write(self.abr_record(line).encode("utf-8"))
            elif "<TransferInfo>" in line:
                count = int(_HEADER_COUNT.search(line)[1])  # type: ignore[index]
                n_new = self.binomial(count * self.change * NEW_ABN_SHARE, line)
                new_records = [self.new_abn() for _ in range(n_new)]
                line = _HEADER_COUNT.sub(f"<RecordCount>{count + n_new:010d}</RecordCount>", line)
                line = _HEADER_TIME.sub(f"<ExtractTime>{self.new.isoformat()}", line)
                out.write(line.encode("utf-8"))
            elif line.startswith("</Transfer>"):
                for record in new_records:
                    out.write(record.encode("utf-8"))
                out.write(raw)
            else:
                out.write(raw)
        out.flush()

    def binomial(self, expected: float, key: str) -> int:
        """A whole number with mean ``expected`` (floor, plus one with the fraction's odds)."""
        whole = int(expected)
        return whole + (_unit(self.seed, "count:" + key, self.new) < expected - whole)

    def abr_record(self, line: str) -> str:
        found = _ABN.search(line)
        if found is None:
            return line
        abn = found[2]
        if _unit(self.seed, abn, self.new) >= self.change:
            # a regulator's new record names a business whatever its register did this
            # week: a few unchanged ones are kept as targets too
            if len(self.quiet) < 1000 and _unit(self.seed + 1, abn, self.new) < self.change:
                main = _MAIN_NAME.search(line)
                if main:
                    self.quiet.append((abn, main[2].replace("&amp;", "&").replace("&apos;", "'")))
            return line
        rng = _draw(self.seed, abn, self.new)
        attrs = found[1]
        active = 'status="ACT"' in attrs
        gst = _GST_STATUS.search(line)
        gst_status = gst[1] if gst else None
        applicable = {
            "cancelled": active,
            "gst_started": active and gst_status != "ACT",
            "gst_ended": gst_status == "ACT",
            "legal_name": bool(_MAIN_NAME.search(line) or _FAMILY.search(line)),
            "trading_name": active,
        }
        kinds = tuple((k, w) for k, w in ABR_KINDS if applicable[k])
        if not kinds:
            return line
        kind = _pick(rng, kinds)
        day = self.day(rng)
        date = f"{day:%Y%m%d}"
        if kind == "cancelled":
            attrs = re.sub(r'status="ACT"', 'status="CAN"', attrs)
            attrs = re.sub(r'ABNStatusFromDate="\d{8}"', f'ABNStatusFromDate="{date}"', attrs)
            line = line[: found.start()] + f"<ABN {attrs}>{abn}</ABN>" + line[found.end() :]
            if gst_status == "ACT":
                line = _GST.sub(f'<GST status="CAN" GSTStatusFromDate="{date}" />', line, 1)
        elif kind == "gst_started":
            gst_xml = f'<GST status="ACT" GSTStatusFromDate="{date}" />'
            if gst:
                line = _GST.sub(gst_xml, line, 1)
            else:
                at = min(
                    (i for i in (line.find("<DGR"), line.find("<OtherEntity>")) if i >= 0),
                    default=line.rindex("</ABR>"),
                )
                line = line[:at] + gst_xml + line[at:]
        elif kind == "gst_ended":
            line = _GST.sub(f'<GST status="CAN" GSTStatusFromDate="{date}" />', line, 1)
        elif kind == "legal_name":
            main = _MAIN_NAME.search(line)
            if main:
                name = f"{rng.choice(SURNAMES)} {rng.choice(('HOLDINGS', 'GROUP', 'SERVICES'))}"
                old = main[2]
                for form in (" PTY LTD", " PTY. LTD.", " PTY LIMITED", " LIMITED", " LTD"):
                    if old.endswith(form):
                        name += form
                        break
                line = line[: main.start(2)] + _xml(name) + line[main.end(2) :]
            else:
                family = _FAMILY.search(line)
                assert family is not None
                name = rng.choice([s for s in SURNAMES[:50] if s != family[2]])
                line = line[: family.start(2)] + _xml(name) + line[family.end(2) :]
        else:  # trading_name
            name = f"{rng.choice(SURNAMES)} {rng.choice(('TRADING', 'SUPPLIES', 'CO'))}"
            trading = _TRADING.search(line)
            if trading:
                line = line[: trading.start(2)] + _xml(name) + line[trading.end(2) :]
            else:
                at = line.rindex("</ABR>")
                line = (
                    line[:at]
                    + '<OtherEntity><NonIndividualName type="TRD"><NonIndividualNameText>'
                    + _xml(name)
                    + "</NonIndividualNameText></NonIndividualName></OtherEntity>"
                    + line[at:]
                )
        line = _LAST_UPDATED.sub(f'recordLastUpdatedDate="{date}"', line, 1)
        self.summary.add(f"abr_{kind}")
        main = _MAIN_NAME.search(line)
        if main and len(self.entities) < 1000:
            self.entities.append((abn, main[2].replace("&amp;", "&").replace("&apos;", "'")))
        return line

    def new_abn(self) -> str:
        rng = _draw(self.seed, f"new:{self.next_abn}:{self.next_acn}", self.new)
        day = self.day(rng)
        date = f"{day:%Y%m%d}"
        state = rng.choice(sorted(STATES))
        low, high = STATES[state]
        address = (
            f"<BusinessAddress><AddressDetails><State>{state}</State>"
            f"<Postcode>{rng.randint(low, high):04d}</Postcode></AddressDetails></BusinessAddress>"
        )
        head = f'<ABR recordLastUpdatedDate="{date}" replaced="N">'
        if rng.random() < 0.5:
            abn = self.numbering.abn_for(self.next_abn)
            self.next_abn += 1
            given = rng.choice(MALE_GIVEN + FEMALE_GIVEN)
            self.summary.add("abr_new_individual")
            return (
                f'{head}<ABN status="ACT" ABNStatusFromDate="{date}">{abn}</ABN>'
                "<EntityType><EntityTypeInd>IND</EntityTypeInd><EntityTypeText>Individual/Sole"
                ' Trader</EntityTypeText></EntityType><LegalEntity><IndividualName type="LGL">'
                f"<GivenName>{_xml(given)}</GivenName><FamilyName>{_xml(rng.choice(SURNAMES))}"
                f"</FamilyName></IndividualName>{address}</LegalEntity>"
                '<GST status="NON" GSTStatusFromDate="19000101" /></ABR>\n'
            )
        acn = self.numbering.acn_for(self.next_acn)
        self.next_acn += 1
        abn = abn_from_acn(acn)
        name = f"{rng.choice(SURNAMES)} {rng.choice(('HOLDINGS', 'GROUP', 'SERVICES'))} PTY LTD"
        self.new_companies.append((name, acn, abn, day))
        gst = (
            f'<GST status="ACT" GSTStatusFromDate="{date}" />'
            if rng.random() < 0.6
            else '<GST status="NON" GSTStatusFromDate="19000101" />'
        )
        self.summary.add("abr_new_company")
        return (
            f'{head}<ABN status="ACT" ABNStatusFromDate="{date}">{abn}</ABN>'
            "<EntityType><EntityTypeInd>PRV</EntityTypeInd><EntityTypeText>Australian Private"
            ' Company</EntityTypeText></EntityType><MainEntity><NonIndividualName type="MN">'
            f"<NonIndividualNameText>{_xml(name)}</NonIndividualNameText></NonIndividualName>"
            f'{address}</MainEntity><ASICNumber ASICNumberType="undetermined">{acn}</ASICNumber>'
            f"{gst}</ABR>\n"
        )

    # -------------------------------------------------------------------- companies

    def companies(self) -> None:
        source, target = self.from_dir / "asic_companies", self.out_dir / "asic_companies"
        target.mkdir(parents=True, exist_ok=True)
        month = f"{self.new:%Y%m}"
        for path in sorted(source.iterdir()):
            if not path.is_file():
                continue
            renamed = _DATED_MONTH.sub(month, path.name, 1)
            if path.suffix.lower() == ".zip":
                with zipfile.ZipFile(path) as src, zipfile.ZipFile(target / renamed, "w") as dst:
                    for member in src.infolist():
                        info = zipfile.ZipInfo(
                            _DATED_MONTH.sub(month, member.filename, 1),
                            date_time=dt.datetime.combine(self.new, dt.time()).timetuple()[:6],  # type: ignore[arg-type]
                        )
                        info.compress_type = zipfile.ZIP_DEFLATED
                        big = member.file_size * 1.1 >= zipfile.ZIP64_LIMIT
                        with src.open(member) as fin, dst.open(info, "w", force_zip64=big) as fout:
                            self.company_file(fin, fout)
            else:
                with open(path, "rb") as src, open(target / renamed, "wb") as dst:
                    self.company_file(src, dst)
        # an older month's file beside the new one would not be read: not republished

    def company_file(self, src: IO[bytes], dst: IO[bytes]) -> None:
        out = _Buffered(dst)
        header: list[str] | None = None
        for raw in src:
            if header is None:
                header = raw.decode("utf-8-sig").rstrip("\r\n").split("\t")
                out.write(raw)
                continue
            line = raw.decode("utf-8")
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) == len(header) and fields[5] == "REGD":
                acn = fields[1]
                if _unit(self.seed, "acn:" + acn, self.new) < self.change:
                    rng = _draw(self.seed, "acn:" + acn, self.new)
                    status = _pick(rng, COMPANY_KINDS)
                    day = self.day(rng)
                    fields[5] = status
                    if status == "DRGD" and len(header) > 14:
                        fields[7] = f"{day:%d/%m/%Y}"
                    fields[10] = "Y"
                    if fields[11] == "Y":
                        self.summary.add(f"company_{status}")
                        self.changed_companies.append((fields[0], acn, fields[12], status, day))
                    line = "\t".join(fields) + "\r\n"
            out.write(line.encode("utf-8"))
        for name, acn, abn, day in self.new_companies:
            row = [name, acn, "APTY", "LMSH", "PROP", "REGD", f"{day:%d/%m/%Y}", "", "", "", "Y",
                   "Y", abn, "", ""]  # fmt: skip
            out.write(("\t".join(row[: len(header or row)]) + "\r\n").encode("utf-8"))
            self.summary.add("company_new")
        out.flush()

    # -------------------------------------------------------------- gazette, adverse

    def gazette(self) -> None:
        target = self.out_dir / "gazette"
        types = {
            "DRGD": ("DEREGISTRATION", "Deregistration"),
            "EXAD": ("APPOINTMENT_OF_LIQUIDATOR", "Appointment of liquidator"),
        }
        rows: list[list[str]] = []
        for name, acn, abn, status, day in self.changed_companies:
            if status not in types:
                continue
            notice_id = f"GZ{self.new:%Y%m%d}{len(rows) + 1:06d}"
            kind, summary = types[status]
            rows.append([notice_id, day.isoformat(), kind, name, acn, abn, summary,
                         f"https://example.gov.au/notices/{notice_id}"])  # fmt: skip
        self.write_csv(
            target / f"notices_{self.new:%Y%m%d}.csv",
            [
                "notice_id",
                "published_date",
                "notice_type",
                "company_name",
                "acn",
                "abn",
                "summary",
                "url",
            ],  # fmt: skip
            rows,
        )
        self.summary.add("gazette_new", len(rows))

    def adverse(self) -> None:
        source, target = self.from_dir / "adverse", self.out_dir / "adverse"
        old_tag = f"_{self.old:%Y%m%d}.csv"
        regulators = sorted(
            p.name[: -len(old_tag)] for p in source.glob(f"*{old_tag}") if p.is_file()
        )
        entities = self.entities or [(abn, name) for name, _, abn, _ in self.new_companies]
        for regulator in regulators:
            rows: list[list[str]] = []
            for k in range(ADVERSE_PER_REGULATOR if entities else 0):
                rng = _draw(self.seed, f"adverse:{regulator}:{k}", self.new)
                # every other record names a business the register left unchanged
                targets = self.quiet if k % 2 and self.quiet else entities
                abn, name = targets[rng.randrange(len(targets))]
                record_id = f"{regulator}-{self.new:%Y%m%d}-{k + 1:04d}"
                rows.append([
                    regulator, record_id, abn, name,
                    ADVERSE_ACTIONS.get(regulator, "INFRINGEMENT_NOTICE"),
                    rng.choice(("HIGH", "MEDIUM", "LOW")), "ACTIVE",
                    self.day(rng).isoformat(), "", "Notice issued",
                    f"https://example.gov.au/{regulator.lower()}/{record_id}",
                ])  # fmt: skip
            self.write_csv(
                target / f"{regulator}_{self.new:%Y%m%d}.csv",
                [
                    "regulator",
                    "record_id",
                    "abn",
                    "entity_name",
                    "action_type",
                    "severity",
                    "status",
                    "action_date",
                    "resolved_date",
                    "summary",
                    "url",
                ],  # fmt: skip
                rows,
            )
            self.summary.add("adverse_new", len(rows))

    @staticmethod
    def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        path.write_text(buffer.getvalue(), encoding="utf-8")

    # ------------------------------------------------------------------------ rest

    def carry_over(self) -> None:
        """Every other file of the old folder, as it was (hard-linked where possible)."""
        rewritten = {"abr", "asic_companies"}
        for path in sorted(self.from_dir.rglob("*")):
            rel = path.relative_to(self.from_dir)
            if rel.parts[0] in rewritten or path.is_dir() or rel.parts[0] == "_sample":
                continue
            out = self.out_dir / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if out.exists():
                out.unlink()
            try:
                os.link(path, out)
            except OSError:
                shutil.copy2(path, out)

    def planted(self) -> None:
        meta = dict(self.meta)
        meta["next_week"] = {
            "from_extract_date": self.old.isoformat(),
            "extract_date": self.summary.extract_date,
            "as_of": self.summary.as_of,
            "change": self.change,
            "seed": self.seed,
            "counts": dict(sorted(self.summary.counts.items())),
        }
        path = self.out_dir / "_sample" / "planted.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(meta, indent=1) + "\n")


_DATED_MONTH = re.compile(r"(?<!\d)\d{6}(?!\d)")


class _Buffered:
    """Joins small writes into ~1 MB ones (the zip member writer has no buffer of its own)."""

    def __init__(self, dst: IO[bytes]) -> None:
        self.dst, self.size = dst, 0
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)
        if self.size >= 1 << 20:
            self.flush()

    def flush(self) -> None:
        self.dst.write(b"".join(self.parts))
        self.parts, self.size = [], 0


def write_next_week(
    from_dir: Path, out_dir: Path, *, change: float = DEFAULT_CHANGE, seed: int = 1
) -> NextWeekSummary:
    """Write the week after ``from_dir``'s into ``out_dir`` (module docstring)."""
    from_dir, out_dir = Path(from_dir), Path(out_dir)
    if from_dir.resolve() == out_dir.resolve():
        raise ValueError("--next-week: write the next week into another folder than FROM_DIR")
    week = _Week(from_dir, out_dir, change, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    week.carry_over()
    week.abr()
    week.companies()
    week.gazette()
    week.adverse()
    week.planted()
    return week.summary
