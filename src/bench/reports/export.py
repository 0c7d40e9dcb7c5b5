"""``bench export``: the history as CSV or JSON.

CSV cells that a spreadsheet would run as a formula (text starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) are neutralised with a leading ``'``. Numbers are written as
numbers; they are never negative in the history.
"""

from __future__ import annotations

import csv
import io
import json

from .board import HistoryRow

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: str) -> str:
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def export_csv(rows: list[HistoryRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(HistoryRow.model_fields))
    for row in rows:
        cells = []
        for value in row.model_dump().values():
            if value is None:
                cells.append("")
            elif isinstance(value, str):
                cells.append(neutralise(value))
            else:
                cells.append(str(value))
        writer.writerow(cells)
    return out.getvalue()


def export_json(rows: list[HistoryRow]) -> str:
    payload = {"format_version": 1, "runs": [row.model_dump(mode="json") for row in rows]}
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


__all__ = ["FORMULA_START", "export_csv", "export_json", "neutralise"]
