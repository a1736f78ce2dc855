"""The PDF's page, styles and cells (reportlab), shared by its sections.

Every table cell is a paragraph that wraps inside its column: text is cut to a length a
cell can hold (a 2,000-character name becomes its first 120 characters and "..."), and a
word wider than its column (a name with no spaces) is broken where it meets the edge, so
nothing runs past a cell and no code breaks mid-word in a column made wide enough for it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, Table, TableStyle

from pipelines.ledgers.report import month as m
from pipelines.serving.notices import DECISION_SUPPORT

PAGE = A4
MARGIN = 15 * mm
BOTTOM_MARGIN = 18 * mm  # the notice and the page number below it
FRAME_WIDTH = PAGE[0] - 2 * MARGIN  # 180 mm
PAD = 3  # points either side of a cell's text
GRID = colors.HexColor("#BBBBBB")
HEADER_BACKGROUND = colors.HexColor("#E8EAF0")
CODE_COLOUR = "#777777"
AMBER = colors.HexColor("#F5A623")
LEVEL_COLOUR = {
    "critical": colors.HexColor("#B00020"),
    "high": colors.HexColor("#E65100"),
    "medium": colors.HexColor("#F9A825"),
    "low": colors.HexColor("#2E7D32"),
}
STATUS_COLOUR = {"FAIL": colors.HexColor("#FDE0DC"), "WARN": colors.HexColor("#FFF4CE")}
NAME_LIMIT = 100  # characters of a name in a heading or a cell
TEXT_LIMIT = 300  # characters of any other text (a rule row, a review reason)
ELLIPSIS = "..."
CELL_FONT, CELL_SIZE = "Helvetica", 7  # a table cell's plain text (the small style)
WIDEST_GLYPH = 1.1  # no glyph of the standard fonts is wider than this many font sizes


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def shorten(text: Any, limit: int) -> str:
    text = " ".join(str(text if text is not None else "").split())
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def break_words(text: str, width: float, font: str, size: float) -> str:
    """``text`` with every word wider than ``width`` points cut into pieces that fit."""
    if len(text) * size * WIDEST_GLYPH <= width:  # fits whatever the letters
        return text
    out = []
    for word in text.split(" "):
        if len(word) * size * WIDEST_GLYPH <= width:
            out.append(word)
            continue
        while word and stringWidth(word, font, size) > width:
            cut = 1
            while cut < len(word) and stringWidth(word[: cut + 1], font, size) <= width:
                cut += 1
            out.append(word[:cut])
            word = word[cut:]
        out.append(word)
    return " ".join(out)


@dataclass
class Layout:
    """Styles and the cell and table builders of one report."""

    customer: str
    month: str
    sheet: Any = field(default_factory=getSampleStyleSheet)

    def __post_init__(self) -> None:
        self.body = ParagraphStyle("body", parent=self.sheet["BodyText"], fontSize=8.5,
                                   leading=10.5)  # fmt: skip
        self.small = ParagraphStyle("small", parent=self.body, fontSize=7, leading=8.5)
        self.head = ParagraphStyle("head", parent=self.small, fontName="Helvetica-Bold")
        self.head_white = ParagraphStyle("head_white", parent=self.head, textColor=colors.white)
        self.h1, self.h2 = self.sheet["Title"], self.sheet["Heading2"]
        self.h3 = ParagraphStyle("h3", parent=self.sheet["Heading3"], fontSize=10.5, leading=13,
                                 spaceBefore=4, spaceAfter=3)  # fmt: skip
        self.title_month = dt.date.fromisoformat(f"{self.month}-01").strftime("%B %Y")

    # -- text ---------------------------------------------------------------------------------

    def text(self, pieces: list[tuple[str, bool]] | str, style: ParagraphStyle | None = None,
             width: float = FRAME_WIDTH, limit: int | None = None) -> Paragraph:  # fmt: skip
        """A paragraph of words and, small and grey beside them, codes: ``pieces`` is
        [(text, is_code)], or one plain text. Each piece cut to ``limit`` characters (text from
        a ledger or a register; None: the report's own words) and broken to fit ``width``
        points."""
        style = style or self.body
        if isinstance(pieces, str):
            pieces = [(pieces, False)]
        code_size = max(5.5, style.fontSize - 1.5)
        joined = ""
        for text, is_code in pieces:
            text = shorten(text, limit or len(text))
            if not text:
                continue
            size = code_size if is_code else style.fontSize
            fitted = _escape(break_words(text, width, style.fontName, size))
            if is_code:
                fitted = f'<font size="{size}" color="{CODE_COLOUR}">{fitted}</font>'
            glue = "" if not joined or text.startswith((";", ",", ".", ")")) else " "
            joined += glue + fitted
        return Paragraph(joined, style)

    def cell(self, pieces: list[tuple[str, bool]] | Any, width: float,
             limit: int = TEXT_LIMIT, style: ParagraphStyle | None = None) -> Paragraph:  # fmt: skip
        """A table cell ``width`` points wide."""
        if not isinstance(pieces, list):
            pieces = "" if pieces is None else str(pieces)
        return self.text(pieces, style or self.small, width - 2 * PAD, limit)

    def plain(self, value: Any, width: float, limit: int = TEXT_LIMIT) -> str | Paragraph:
        """A value as a table cell: as it is when it fits on one line (a plain string is
        drawn, never wrapped, and costs a table far less than a paragraph), else a cell."""
        text = "" if value is None else str(value)
        if (
            len(text) <= limit
            and "\n" not in text
            and (
                len(text) * CELL_SIZE * WIDEST_GLYPH <= width - 2 * PAD
                or stringWidth(text, CELL_FONT, CELL_SIZE) <= width - 2 * PAD
            )
        ):
            return text
        return self.cell(text, width, limit)

    # -- tables -------------------------------------------------------------------------------

    def table(self, header: list[Any], rows: list[list[Any]], widths: list[float],
              limits: list[int] | None = None) -> Table:  # fmt: skip
        """A grid with a header row repeated on every page; each value becomes a cell of its
        column (``limits``: characters per column)."""
        limits = limits or [TEXT_LIMIT] * len(widths)
        data = [[h if isinstance(h, Paragraph) else self.cell(h, w, style=self.head)
                 for h, w in zip(header, widths, strict=True)]]  # fmt: skip
        for row in rows:
            data.append([
                v if isinstance(v, Paragraph) else self.plain(v, w, lim)
                for v, w, lim in zip(row, widths, limits, strict=True)
            ])  # fmt: skip
        table = Table(data, colWidths=widths, repeatRows=1)
        table.setStyle(TableStyle([
            ("GRID", (0, 0), (-1, -1), 0.25, GRID),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), PAD),
            ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
            ("TOPPADDING", (0, 0), (-1, -1), 2),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ("BACKGROUND", (0, 0), (-1, 0), HEADER_BACKGROUND),
            ("FONT", (0, 0), (-1, -1), CELL_FONT, CELL_SIZE),
        ]))  # fmt: skip
        return table

    # -- things said the same way everywhere --------------------------------------------------

    def supplier(self, row: dict[str, Any], width: float, limit: int = NAME_LIMIT) -> Paragraph:
        """The supplier's name, its reference small beside it."""
        ref = row.get("supplier_ref")
        pieces = [(m.name(row), False), *([(f"ref {ref}", True)] if ref else [])]
        return self.cell(pieces, width, limit)

    def footer(self, canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(MARGIN, 10 * mm, DECISION_SUPPORT)
        canvas.drawRightString(
            PAGE[0] - MARGIN, 5 * mm,
            f"{shorten(self.customer, 64)} - {self.title_month} - page {doc.page}",
        )  # fmt: skip
        canvas.restoreState()
