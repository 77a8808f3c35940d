"""A scripted agent session: questions an agent asks of a workspace,
answered through `plumb mcp` with the official Python MCP client.

The script writes its own workspace (a wide CSV, an event table, a nested
JSON document, a JSON Lines log, Parquet written by pyarrow and a workbook
written by openpyxl), asks each question in the few calls an agent would
make, and holds every fact in the answers to its own computation on the
data it wrote. It records the calls and the bytes of answers each
question took and prints them as a table, so a regression shows; a
question over its budget (3 calls, 12 KiB of answers) fails the run.

Usage: agent_session.py PLUMB_BINARY
"""

import asyncio
import collections
import csv
import datetime as dt
import json
import os
import random
import sys
import tempfile
import uuid

import openpyxl
import pyarrow as pa
import pyarrow.parquet as pq
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

MAX_CALLS = 3
MAX_BYTES = 12 * 1024

UTC = dt.timezone.utc


def structured(result):
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)


class Agent:
    """Counts the calls and the answer bytes of the question being asked."""

    def __init__(self, session):
        self.session = session
        self.calls = 0
        self.bytes = 0
        self.rows = []

    async def data(self, **args):
        result = await self.session.call_tool("data", args)
        self.calls += 1
        answer = structured(result)
        self.bytes += len(json.dumps(answer, separators=(",", ":")).encode())
        if not answer.get("ok"):
            raise AssertionError(f"refused: {args}: {answer}")
        return answer

    def done(self, question, ok, detail=""):
        self.rows.append((question, self.calls, self.bytes, ok, detail))
        self.calls = 0
        self.bytes = 0


def when(text):
    t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def stamp(at, offset_minutes):
    if offset_minutes is None:
        return at.astimezone(UTC).replace(tzinfo=None).isoformat()
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    text = at.astimezone(zone).isoformat()
    return text.replace("+00:00", "Z")


def write_workspace(root):
    rng = random.Random(59)
    facts = {}
    # A wide table: 300 columns, three of them identifiers.
    cols = ["id", "order_uuid"] + [f"m{i:03d}" for i in range(296)] + ["email", "region"]
    with open(os.path.join(root, "wide.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(1500):
            w.writerow([i + 1, uuid.UUID(int=rng.getrandbits(128))]
                       + [rng.randint(0, 9) for _ in range(296)]
                       + [f"user{i}@example.org", rng.choice(["eu", "us", "apac"])])
    facts["wide"] = cols
    # Events: times with assorted offsets, a level, an amount.
    start = dt.datetime(2026, 3, 1, tzinfo=UTC)
    events = []
    for i in range(6000):
        at = start + dt.timedelta(seconds=rng.randrange(7 * 86400))
        events.append({
            "id": i,
            "ts": stamp(at, rng.choice([None, 0, 60, -300, 330])),
            "level": rng.choice(["info"] * 6 + ["warn"] * 3 + ["error"]),
            "amount": rng.randrange(0, 2000),
            "region": rng.choice(["north", "south", "east", "west", "centre"]),
        })
    with open(os.path.join(root, "events.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(events[0]))
        w.writeheader()
        w.writerows(events)
    facts["events"] = events
    # A log in JSON Lines.
    log = []
    for i in range(20000):
        at = start + dt.timedelta(seconds=i * 30 + rng.randrange(30))
        level = rng.choice(["debug", "info", "info", "warn", "error"])
        msg = rng.choice(["ok", "slow disk", "request timeout", "cache miss"])
        log.append({"ts": stamp(at, rng.choice([0, 120])), "level": level,
                    "msg": msg, "ctx": {"req": i, "user": f"u{rng.randrange(50)}"}})
    with open(os.path.join(root, "app.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in log)
    facts["log"] = log
    # A nested document.
    servers = [{"name": f"s{i}", "port": 8000 + i, "tags": ["a"] * (i % 3)} for i in range(40)]
    for s in servers[::7]:
        s["tls"] = {"cert": "c.pem", "key": "k.pem"}
    doc = {"meta": {"version": 4, "owner": "ops"},
           "config": {"servers": servers, "limits": {"cpu": 8, "memory": "16G"}}}
    with open(os.path.join(root, "config.json"), "w") as f:
        json.dump(doc, f, indent=2)
    facts["servers"] = servers
    # Parquet in row groups, and a workbook.
    table = pa.table({"id": list(range(10_000)), "price": [i * 0.25 for i in range(10_000)]})
    pq.write_table(table, os.path.join(root, "sales.parquet"), row_group_size=2500)
    facts["row_groups"] = [g.num_rows for g in
                           (pq.ParquetFile(os.path.join(root, "sales.parquet")).metadata.row_group(k)
                            for k in range(4))]
    wb = openpyxl.Workbook()
    wb.active.append(["team", "lead"])
    wb.active.append(["core", "ann"])
    wb.save(os.path.join(root, "teams.xlsx"))
    return facts


async def ask(agent, facts, root):
    # 1. The columns of a wide table, and which look like identifiers
    # (every value present and distinct): one row per column.
    r = await agent.data(op="inspect", path="wide.csv", stats=True, detail="columns")
    fields = r["result"]["column_fields"]
    rows = [dict(zip(fields, c)) for c in r["result"]["columns"]]
    names = [c["name"] for c in rows]
    total = r["result"]["row_count"]

    def unique(c):
        # An estimated count (HyperLogLog) is within a few percent.
        least = total if c["distinct_exact"] else 0.95 * total
        return c["nulls"] == 0 and c["distinct"] >= least

    ids = [c["name"] for c in rows if unique(c)]
    ok = names == facts["wide"] and ids == ["id", "order_uuid", "email"] and total == 1500
    agent.done("columns of a wide table, identifiers", ok, f"{len(names)} columns, ids {ids}")

    # 2. The last five rows matching two conditions.
    events = facts["events"]
    want = [e["id"] for e in events if e["level"] == "error" and e["amount"] > 1500][-5:]
    r = await agent.data(op="search", path="events.csv", offset=-5,
                         conditions=["level = error", "amount > 1500"])
    got = [int(h["cells"][0]) for h in r["result"]["hits"]]
    agent.done("last five rows matching two conditions", got == want, f"{got}")

    # 3. The structure under a JSON pointer.
    r = await agent.data(op="inspect", path="config.json", pointer="/config/servers")
    keys = sorted(set().union(*(s.keys() for s in facts["servers"])))
    got = sorted(r["result"]["keys"])
    ok = got == keys and r["result"]["count"] == len(facts["servers"])
    agent.done("structure under a JSON pointer", ok, f"keys {got}")

    # 4. Errors between two times in a log, the bounds given with offsets.
    lo = dt.datetime(2026, 3, 2, 6, tzinfo=UTC)
    hi = dt.datetime(2026, 3, 3, 18, tzinfo=UTC)
    want = sum(1 for r in facts["log"] if r["level"] == "error" and lo <= when(r["ts"]) < hi)
    r = await agent.data(op="search", path="app.jsonl", count_only=True,
                         conditions=["level = error", f"ts >= {stamp(lo, 120)}", f"ts < {stamp(hi, -60)}"])
    got = r["result"]["total"]
    agent.done("errors between two times in a log", got == want and r["result"]["total_exact"], f"{got}")

    # 5. The files of the workspace and their formats.
    r = await agent.data(op="list", path=".")
    got = {e["name"]: e["format"] for e in r["result"]["entries"]}
    want = {"app.jsonl": "jsonl", "config.json": "json", "events.csv": "csv",
            "sales.parquet": "parquet", "teams.xlsx": "xlsx", "wide.csv": "csv"}
    agent.done("files of the workspace and formats", got == want, f"{got}")

    # 6. The distinct values of a column: its index from the header, then
    # that one column's statistics.
    head = await agent.data(op="inspect", path="events.csv")
    k = head["result"]["header"].index("region")
    r = await agent.data(op="inspect", path="events.csv", stats=True, column_offset=k, column_limit=1)
    s = r["result"]["columns"][0]["stats"]
    counts = collections.Counter(e["region"] for e in events)
    got = {t["value"]: t["count"] for t in s["top"]}
    ok = s["distinct"] == len(counts) and got == dict(counts) and s["accuracy"]["top"] == "exact"
    agent.done("distinct values of a column", ok, f"{sorted(got)}")

    # 7. A Parquet file's row groups.
    r = await agent.data(op="inspect", path="sales.parquet")
    groups = r["result"]["row_groups"]
    got = [g["rows"] for g in groups["list"]]
    agent.done("a Parquet file's row groups", got == facts["row_groups"] and groups["count"] == 4, f"{got}")

    # 8. A continuation of a cut answer: the next page of hits starts
    # exactly where the first said.
    want = [i for i, r in enumerate(facts["log"]) if "timeout" in r["msg"]][:40]
    p1 = await agent.data(op="search", path="app.jsonl", pattern="timeout", limit=20)
    nxt = p1["result"]["next_offset"]
    p2 = await agent.data(op="search", path="app.jsonl", pattern="timeout", limit=20, offset=nxt)
    got = [h["record"] for h in p1["result"]["hits"] + p2["result"]["hits"]]
    ok = got == want and p1["result"]["has_more"] and f"offset={nxt}" in p1["hint"]
    agent.done("continuation of a cut answer", ok, f"next_offset {nxt}")


async def main(binary):
    with tempfile.TemporaryDirectory() as root:
        facts = write_workspace(root)
        params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                agent = Agent(session)
                await ask(agent, facts, root)
    failed = False
    print(f"{'question':<42} {'calls':>5} {'bytes':>7}  verdict")
    for question, calls, nbytes, ok, detail in agent.rows:
        within = calls <= MAX_CALLS and nbytes <= MAX_BYTES
        verdict = "ok" if ok and within else ("OVER BUDGET" if ok else "WRONG")
        failed |= verdict != "ok"
        print(f"{question:<42} {calls:>5} {nbytes:>7}  {verdict}  {detail}")
    total_calls = sum(r[1] for r in agent.rows)
    total_bytes = sum(r[2] for r in agent.rows)
    print(f"{'all':<42} {total_calls:>5} {total_bytes:>7}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
