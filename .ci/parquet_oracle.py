"""plumb's Parquet reader against pyarrow, value by value.

Writes Parquet files with pyarrow (every logical type pyarrow writes,
nulls, nesting, several codecs, both data page versions, many row
groups), selects every row of each with `plumb select --json`, paging
by `next_offset`, and compares each value with what pyarrow reads back,
in plumb's documented JSON form (docs/cli.md, "Parquet"; docs/json.md,
"Placeholders"). Also checks `inspect`'s row count and that `validate`
finds each file valid, and that `inspect --stats` counts the values,
nulls, distinct values and integer sums pyarrow counts. Exits non-zero
on the first difference.

Usage: python parquet_oracle.py PLUMB_BINARY
"""

import datetime
import decimal
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

PLUMB = sys.argv[1]
SAFE = 2**53 - 1


def plumb(*args):
    out = subprocess.run([PLUMB, *args, "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def digits_of(unit):
    return {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit]


def stamp(ticks, unit, utc):
    per = 10 ** digits_of(unit)
    secs, frac = divmod(ticks, per)
    days, of_day = divmod(secs, 86400)
    day = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    text = "%sT%02d:%02d:%02d" % (day.isoformat(), of_day // 3600, of_day // 60 % 60, of_day % 60)
    if digits_of(unit):
        text += ".%0*d" % (digits_of(unit), frac)
    return text + ("Z" if utc else "")


def clock(ticks, unit):
    per = 10 ** digits_of(unit)
    secs, frac = divmod(ticks, per)
    return "%02d:%02d:%02d.%0*d" % (secs // 3600, secs // 60 % 60, secs % 60, digits_of(unit), frac)


def number_matches(got, want):
    """An exact decimal `want` against plumb's number or $literal."""
    if isinstance(got, dict):
        return "$literal" in got and decimal.Decimal(got["$literal"]) == want
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    # A plain number is given only when a double reads it back exactly.
    return decimal.Decimal(repr(got)) == want


def same(got, want, typ):
    """Whether plumb's JSON `got` is pyarrow's value `want` of type `typ`."""
    if want is None:
        return got is None
    if pa.types.is_boolean(typ):
        return got is want
    if pa.types.is_integer(typ):
        if abs(want) <= SAFE:
            return type(got) is int and got == want
        return got == {"$literal": str(want), "precision": "unsafe-integer"}
    if pa.types.is_floating(typ):
        if np.isnan(want):
            return got == {"$float": "NaN"}
        if np.isinf(want):
            return got == {"$float": "Infinity" if want > 0 else "-Infinity"}
        if pa.types.is_float32(typ):
            # The float's own shortest text: it reads back to the same
            # float32 (not to the same double).
            return isinstance(got, (int, float)) and np.float32(got) == np.float32(want)
        return isinstance(got, (int, float)) and got == want
    if pa.types.is_decimal(typ):
        return number_matches(got, want)
    if pa.types.is_dictionary(typ):
        return same(got, want, typ.value_type)
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return got == want
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        try:
            return got == {"$bytes": want.decode("utf-8")}
        except UnicodeDecodeError:
            return got == {"$hex": want.hex()}
    if pa.types.is_date32(typ):
        return got == want.isoformat()
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return isinstance(got, list) and len(got) == len(want) and all(
            same(g, w, typ.value_type) for g, w in zip(got, want)
        )
    if pa.types.is_map(typ):
        return isinstance(got, list) and len(got) == len(want) and all(
            same(g.get("key"), k, typ.key_type) and same(g.get("value"), v, typ.item_type)
            for g, (k, v) in zip(got, want)
        )
    if pa.types.is_struct(typ):
        return isinstance(got, dict) and all(
            same(got.get(f.name), want[f.name], f.type) for f in typ
        )
    raise AssertionError("no rule for %s" % typ)


def expected_column(col):
    """pyarrow's values of a column, with times and timestamps as the
    exact text plumb writes (pyarrow's own Python objects drop nanos)."""
    typ = col.type
    if pa.types.is_timestamp(typ):
        raw = pc.cast(col, pa.int64()).to_pylist()
        return [None if v is None else stamp(v, typ.unit, typ.tz is not None) for v in raw], pa.string()
    if pa.types.is_time(typ):
        raw = pc.cast(col, pa.int64() if pa.types.is_time64(typ) else pa.int32()).to_pylist()
        return [None if v is None else clock(v, typ.unit) for v in raw], pa.string()
    return col.to_pylist(), typ


def table(n, seed):
    rng = np.random.default_rng(seed)
    nulls = rng.random(n) < 0.15

    def masked(values, typ):
        return pa.array([None if m else v for v, m in zip(values, nulls)], type=typ)

    ints = rng.integers(-(2**62), 2**62, n)
    ints[::7] = rng.integers(-1000, 1000, n)[::7]
    text = ["v%d %s" % (i, "é✓" * (i % 4)) for i in range(n)]
    return pa.table(
        {
            "i8": masked(rng.integers(-128, 128, n).tolist(), pa.int8()),
            "i16": masked(rng.integers(-(2**15), 2**15, n).tolist(), pa.int16()),
            "i32": masked(rng.integers(-(2**31), 2**31, n).tolist(), pa.int32()),
            "i64": masked(ints.tolist(), pa.int64()),
            "u8": masked(rng.integers(0, 256, n).tolist(), pa.uint8()),
            "u32": masked(rng.integers(0, 2**32, n).tolist(), pa.uint32()),
            "u64": masked([int(x) for x in rng.integers(0, 2**63, n)] , pa.uint64()),
            "f32": masked([float("nan") if i % 17 == 0 else float(x) for i, x in enumerate(rng.normal(0, 1e3, n))], pa.float32()),
            "f64": masked([float("-inf") if i % 19 == 0 else float(x) for i, x in enumerate(rng.normal(0, 1e6, n))], pa.float64()),
            "b": masked((rng.random(n) < 0.5).tolist(), pa.bool_()),
            "s": masked(text, pa.string()),
            "dict": masked(["cat%d" % (i % 5) for i in range(n)], pa.string()).dictionary_encode(),
            "bin": masked([bytes([i % 256, 255 - i % 256]) if i % 2 else b"ok%d" % i for i in range(n)], pa.binary()),
            "fsb": masked([bytes([i % 256]) * 4 for i in range(n)], pa.binary(4)),
            "d9": masked([decimal.Decimal(int(x)).scaleb(-2) for x in rng.integers(-(10**8), 10**8, n)], pa.decimal128(9, 2)),
            "d38": masked([decimal.Decimal(int(x) * 10**18 + 7).scaleb(-10) for x in rng.integers(-(10**18), 10**18, n)], pa.decimal128(38, 10)),
            "day": masked([datetime.date(1970, 1, 1) + datetime.timedelta(days=int(x)) for x in rng.integers(-700000, 2900000, n)], pa.date32()),
            "ts_ms": masked(rng.integers(-(2**40), 2**42, n).tolist(), pa.timestamp("ms", tz="UTC")),
            "ts_us": masked(rng.integers(-(2**50), 2**52, n).tolist(), pa.timestamp("us")),
            "ts_ns": masked(rng.integers(-(2**62), 2**62, n).tolist(), pa.timestamp("ns", tz="Europe/Paris")),
            "t_ms": masked(rng.integers(0, 86400000, n).tolist(), pa.time32("ms")),
            "t_ns": masked(rng.integers(0, 86400 * 10**9, n).tolist(), pa.time64("ns")),
            "list": masked([[int(x) for x in rng.integers(-5, 5, i % 4)] + ([None] if i % 9 == 0 else []) for i in range(n)], pa.list_(pa.int32())),
            "strs": masked([["a%d" % j for j in range(i % 3)] for i in range(n)], pa.list_(pa.string())),
            "st": masked([{"x": i, "y": None if i % 3 else "y%d" % i} for i in range(n)], pa.struct([("x", pa.int64()), ("y", pa.string())])),
            "map": masked([[("k%d" % j, j * i) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        }
    )


def check(path, written):
    back = pq.read_table(path)
    rows = []
    offset = 0
    while True:
        a = plumb("select", path, "--offset", str(offset), "--limit", "1000")
        assert a.get("ok"), a
        rows.extend(a["rows"])
        offset += a["returned"]
        if not a["has_more"]:
            break
    assert len(rows) == back.num_rows == written.num_rows, (path, len(rows), back.num_rows)
    for name in back.column_names:
        want, typ = expected_column(back.column(name))
        for i, w in enumerate(want):
            g = rows[i].get(name)
            if not same(g, w, typ):
                sys.exit("%s: row %d column %s: plumb %r, pyarrow %r (%s)" % (path, i, name, g, w, typ))
    ins = plumb("inspect", path)
    assert ins["rows"] == back.num_rows, ins
    # plumb's own statistics (--stats) against pyarrow's counts, for the
    # flat columns whose values compare as pyarrow compares them (floats
    # left out: plumb tells 0.0 and -0.0 apart by their text).
    st = plumb("inspect", path, "--stats")
    by_path = {c["path"]: c["stats"] for c in st["columns"]}
    for name in back.column_names:
        col = back.column(name)
        typ = col.type
        if pa.types.is_dictionary(typ):
            col = pc.cast(col, typ.value_type)
            typ = typ.value_type
        flat = pa.types.is_integer(typ) or pa.types.is_string(typ) or pa.types.is_date32(typ) or pa.types.is_decimal(typ) or pa.types.is_boolean(typ)
        if not flat:
            continue
        got = by_path[name]
        assert got["count"] == back.num_rows and got["nulls"] == col.null_count, (path, name, got["count"], got["nulls"], col.null_count)
        distinct = pc.count_distinct(col, mode="only_valid").as_py()
        if got["accuracy"]["distinct"] == "exact":
            assert got["distinct"] == distinct, (path, name, got["distinct"], distinct)
        else:
            err = got["accuracy"]["distinct"]["bound_99_7"]
            assert abs(got["distinct"] - distinct) <= err * distinct + 1, (path, name, got["distinct"], distinct, err)
        if pa.types.is_integer(typ) and got["numbers"]["sum"] is not None:
            total = sum(v for v in col.to_pylist() if v is not None)
            s_ = got["numbers"]["sum"]
            if got["accuracy"].get("sum", "exact") == "exact":
                s_ = int(s_["$literal"]) if isinstance(s_, dict) else s_
                assert s_ == total, (path, name, s_, total)
            else:
                # Labelled an estimate: the double nearest the sum.
                assert abs(s_ - total) <= abs(total) * 1e-12 + 1, (path, name, s_, total)
    val = plumb("validate", path)
    assert val["valid"] is True, val
    # search: counts of exact predicates against pyarrow's filters.
    if "i64" in back.column_names:
        col = back.column("i64")
        for where, mask in [
            ("> 0", pc.greater(col, 0)),
            ("= %d" % col[7].as_py() if col[7].is_valid else "is null", pc.equal(col, col[7].as_py()) if col[7].is_valid else pc.is_null(col)),
            ("is null", pc.is_null(col)),
        ]:
            got = plumb("search", path, "--column", "i64", "--where", where, "--count-only")
            want = pc.sum(pc.fill_null(mask, False)).as_py() or 0
            assert got["total"] == want and got["total_exact"], (path, where, got.get("total"), want)


def main():
    tmp = tempfile.mkdtemp()
    checked = 0
    for k, (codec, version, group) in enumerate(
        [
            ("snappy", "1.0", 500),
            ("zstd", "2.0", 333),
            ("gzip", "1.0", 10000),
            ("brotli", "2.0", 128),
            ("lz4", "1.0", 1000),
            ("none", "2.0", 77),
        ]
    ):
        t = table(1500, k)
        path = os.path.join(tmp, "t%d.parquet" % k)
        pq.write_table(t, path, compression=codec, data_page_version=version, row_group_size=group)
        check(path, t)
        # Only the flat columns: select then reads a window column by
        # column, passing over whole pages, not row by row.
        flat = t.select([f.name for f in t.schema if not pa.types.is_nested(f.type)])
        path = os.path.join(tmp, "flat%d.parquet" % k)
        pq.write_table(flat, path, compression=codec, data_page_version=version, row_group_size=group, data_page_size=4096)
        check(path, flat)
        checked += 2
    print("parquet oracle: %d files, every value equal to pyarrow's" % checked)


main()
