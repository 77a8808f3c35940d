"""Workbooks written by openpyxl, read back by plumb and compared cell by
cell with what openpyxl itself reads from them.

Run by .ci/run as: python .ci/sheets_oracle.py target/release/plumb

Each workbook mixes every kind of cell openpyxl writes (integers, floats
from the extremes of the double range, text with whitespace and
multibyte characters, booleans, dates, date-times, times, blanks,
formulas), over several sheets, in the 1900 and the 1904 date systems,
with merged regions. plumb's select (no header, every row) must give
each cell as openpyxl reads it; its inspect must count the formulas and
merged regions openpyxl wrote and name the date system.
"""

import datetime
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904

PLUMB = sys.argv[1]
failures = []


def plumb(*args):
    out = subprocess.run([PLUMB, *args, "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def value(rng):
    kind = rng.randrange(11)
    if kind == 0:
        if rng.random() < 0.1:
            # Integers past a double's 53 bits: the cell holds the digits.
            return rng.choice([2**53 + 1, -(2**62) - 3, 2**63 - 1])
        return rng.randrange(-10**9, 10**9)
    if kind == 1:
        return rng.choice([0.1, -2.5, 1e300, -1e-300, 5e-324, 2**52 + 0.5, 3.141592653589793])
    if kind == 2:
        return rng.uniform(-1e6, 1e6)
    if kind == 3:
        return rng.choice(["plain", "  padded  ", "naïve – 東京 🙂", "line\nbreak", "tab\there", "=not a formula?"[1:], "0042", "TRUE"])
    if kind == 4:
        return rng.random() < 0.5
    if kind == 5:
        return datetime.date(rng.randrange(1905, 2100), rng.randrange(1, 13), rng.randrange(1, 29))
    if kind == 6:
        return datetime.datetime(rng.randrange(1905, 2100), rng.randrange(1, 13), rng.randrange(1, 29),
                                 rng.randrange(24), rng.randrange(60), rng.randrange(60))
    if kind == 7:
        return datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60))
    if kind == 8:
        return None
    if kind == 9:
        return "x" * rng.randrange(1, 300)
    return rng.randrange(-100, 100) * 0.25


def expected(v):
    """A cell as plumb answers it."""
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, datetime.datetime):
        if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
            return v.strftime("%Y-%m-%d")
        return v.strftime("%Y-%m-%dT%H:%M:%S")
    if isinstance(v, datetime.date):
        return v.strftime("%Y-%m-%d")
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S")
    return v


def same(got, want):
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return got == want or (math.isnan(got) and math.isnan(want))
    if isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float):
        return got == want
    if isinstance(want, int) and isinstance(got, dict) and "$literal" in got:
        return int(got["$literal"]) == want
    return got == want


def check(path, epoch_1904):
    wb_values = openpyxl.load_workbook(path, data_only=True)
    wb_formulas = openpyxl.load_workbook(path)
    inspect = plumb("inspect", str(path))
    if inspect.get("date_system") != ("1904" if epoch_1904 else "1900"):
        failures.append(f"{path.name}: date system {inspect.get('date_system')}")
    for index, ws in enumerate(wb_values.worksheets):
        report = inspect["sheets"][index]
        formulas = sum(
            1
            for row in wb_formulas.worksheets[index].iter_rows()
            for c in row
            if isinstance(c.value, str) and c.value.startswith("=")
        )
        if report["formulas"]["count"] != formulas:
            failures.append(f"{path.name}/{ws.title}: {report['formulas']['count']} formulas, openpyxl wrote {formulas}")
        merged = len(wb_formulas.worksheets[index].merged_cells.ranges)
        if report["merged"]["count"] != merged:
            failures.append(f"{path.name}/{ws.title}: {report['merged']['count']} merged, openpyxl wrote {merged}")
        offset = 0
        while True:
            sel = plumb("select", str(path), "--sheet", ws.title, "--header", "false",
                        "--offset", str(offset), "--limit", "500")
            if not sel.get("ok"):
                failures.append(f"{path.name}/{ws.title}: refused {sel}")
                break
            first_col = openpyxl.utils.column_index_from_string(sel["letters"][0]) if sel["letters"] else 1
            for i, row in enumerate(sel["rows"]):
                r = sel["first_row"] + i
                for j, got in enumerate(row):
                    want = expected(ws.cell(row=r, column=first_col + j).value)
                    if isinstance(got, dict) and "$truncated" in got:
                        ok = isinstance(want, str) and want.startswith(got["$truncated"]) and got["bytes"] == len(want.encode())
                    else:
                        ok = same(got, want)
                    if not ok:
                        failures.append(f"{path.name}/{ws.title}!{sel['letters'][j]}{r}: plumb {got!r}, openpyxl {want!r}")
            offset += sel["returned"]
            if not sel["has_more"]:
                break
        if offset != report["rows"]:
            failures.append(f"{path.name}/{ws.title}: selected {offset} rows, inspect counts {report['rows']}")


def main():
    rng = random.Random(20261204)
    cells = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(8):
            epoch_1904 = n % 2 == 1
            wb = openpyxl.Workbook()
            if epoch_1904:
                wb.epoch = CALENDAR_MAC_1904
            for s in range(rng.randrange(1, 4)):
                ws = wb.active if s == 0 else wb.create_sheet()
                ws.title = f"s{s} data"
                rows, cols = rng.randrange(1, 700), rng.randrange(1, 9)
                top = rng.randrange(0, 3)
                left = rng.randrange(0, 3)
                for r in range(rows):
                    for c in range(cols):
                        v = value(rng)
                        if v is not None:
                            cell = ws.cell(row=top + r + 1, column=left + c + 1, value=v)
                            cells += 1
                            if isinstance(v, datetime.datetime):
                                cell.number_format = "yyyy-mm-dd hh:mm:ss"
                if rng.random() < 0.7:
                    ws.cell(row=top + rows + 1, column=left + 1, value=f"=SUM({openpyxl.utils.get_column_letter(left + 1)}1:A2)")
                    ws.cell(row=top + rows + 2, column=left + 1, value="=IF(A1>0,MAX(B:B),0)")
                if rng.random() < 0.7:
                    r0 = top + rows + 3
                    ws.merge_cells(start_row=r0, start_column=1, end_row=r0 + 1, end_column=3)
            path = Path(tmp) / f"book{n}.xlsx"
            wb.save(path)
            check(path, epoch_1904)
    print(f"sheets oracle: 8 workbooks, {cells} cells written by openpyxl, {len(failures)} differences")
    for f in failures[:30]:
        print("  " + f)
    sys.exit(1 if failures else 0)


main()
