"""CSV files written as the tools in the wild write them, read back by
plumb and compared with Python's csv module (given the true dialect)
and with DuckDB's read_csv where DuckDB reads them right.

Run by .ci/run as: python .ci/csv_oracle.py target/release/plumb

The shapes: R's write.csv (a quoted empty first header cell over row
names), pandas' to_csv with its index (an empty first header cell), R's
write.table (a header one field short of its rows), readr's write_csv
(no row names, NA for missing), rows that end with a delimiter under a
header that does not, and a comma file whose quoted texts span lines and
hold tabs, and prose whose lines split evenly at spaces. For each, plumb must detect the delimiter, count the rows the
writer wrote (never one more or one less), name as many columns as the
rows hold, and return every cell verbatim in select, as csv reads it.
"""

import csv
import io
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

PLUMB = sys.argv[1]
failures = []


def plumb(*args):
    out = subprocess.run([PLUMB, *args, "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: plumb {got!r}, expected {want!r}")


def written(rows, **fmt):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n", **fmt).writerows(rows)
    return buf.getvalue()


def table(rng, n, width):
    names = [f"v{i}" for i in range(width)]
    rows = []
    for r in range(n):
        row = []
        for c in range(width):
            k = (r + c) % 4
            if k == 0:
                row.append(str(rng.randrange(-1000, 1000)))
            elif k == 1:
                row.append(f"{rng.uniform(-100, 100):.3f}")
            elif k == 2:
                row.append(rng.choice(["a b", "x, y", 'say "hi"', "naïve", "z"]))
            else:
                row.append(rng.choice(["1", "2", "3"]))
        rows.append(row)
    return names, rows


def cases(rng):
    names, rows = table(rng, 40, 5)
    # R's write.csv: every cell quoted, row names first under "".
    r_csv = written([[""] + names] + [[str(i + 1)] + r for i, r in enumerate(rows)], quoting=csv.QUOTE_ALL)
    yield "R write.csv", r_csv, ["column0"] + names, [[str(i + 1)] + r for i, r in enumerate(rows)]
    # pandas to_csv with its index: an empty first header cell.
    pd_csv = written([[""] + names] + [[str(i)] + r for i, r in enumerate(rows)])
    yield "pandas to_csv(index=True)", pd_csv, ["column0"] + names, [[str(i)] + r for i, r in enumerate(rows)]
    # readr's write_csv: NA for missing values, no row names.
    readr = [[("NA" if (i + j) % 7 == 0 else c) for j, c in enumerate(r)] for i, r in enumerate(rows)]
    yield "readr write_csv", written([names] + readr), names, readr
    # Rows that end with a delimiter under a header that does not: the
    # first data row is a row, never a preamble.
    trailing = "id,name,score\n1,a,10\n" + "".join(f"{i},n{i},{i * 3},\n" for i in range(2, 30))
    parsed = list(csv.reader(io.StringIO(trailing)))
    yield "trailing delimiters", trailing, None, parsed[1:]
    # Quoted texts over two lines, each line holding a tab.
    multi = [names] + [r[:-1] + [f"first\tline {i}\nsecond\tline"] for i, r in enumerate(rows)]
    yield "quoted multi-line texts with tabs", written(multi), names, multi[1:]
    # Prose whose lines hold as many words each, names quoted: no
    # delimiter splits it (DuckDB's reading), however evenly it splits
    # at spaces; one column of lines, as csv reads them with a comma.
    who = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi"]
    verbs = ["said", "wrote", "asked", "sang"]
    prose = "".join(f'"{rng.choice(who)}" {rng.choice(verbs)} hello to {rng.choice(who).lower()}.\n' for _ in range(30))
    parsed = list(csv.reader(io.StringIO(prose)))
    yield "prose with quoted names", prose, parsed[0], parsed[1:]


def main():
    rng = random.Random(7)
    try:
        import duckdb
    except ImportError:
        duckdb = None
    with tempfile.TemporaryDirectory() as d:
        for what, text, header, data in cases(rng):
            path = Path(d) / (what.replace(" ", "_").replace("(", "").replace(")", "").replace("=", "") + ".csv")
            path.write_text(text, encoding="utf-8")
            a = plumb("inspect", str(path))
            check(f"{what}: delimiter", a.get("delimiter"), ",")
            check(f"{what}: skipped lines", a.get("skipped_lines"), 0)
            check(f"{what}: rows", a.get("row_count"), len(data))
            width = max(len(r) for r in data)
            check(f"{what}: columns", len(a.get("columns") or []), width)
            if header is not None:
                check(f"{what}: header", a.get("header"), header)
            s = plumb("select", str(path), "--limit", "1000")
            got = s.get("rows")
            check(f"{what}: cells", got, data)
            if duckdb is not None and header is not None:
                # DuckDB's own reading, where it agrees on the header:
                # the same number of rows and columns.
                rel = duckdb.sql(f"select * from read_csv('{path}', header=true)")
                check(f"{what}: DuckDB rows", a.get("row_count"), len(rel.fetchall()))
                check(f"{what}: DuckDB columns", len(a.get("columns") or []), len(rel.columns))
    if failures:
        print("\n".join(failures[:40]))
        print(f"{len(failures)} mismatches")
        sys.exit(1)
    print("csv oracle: every case read as written" + ("" if duckdb else " (DuckDB not installed)"))


main()
