"""Drive `plumb mcp` with the official Python MCP client (mcp on PyPI).

Lists the tools, calls data and read, checks that a refusal is an error
result carrying the typed refusal, and that a weak caller's arguments are
repaired. Exits non-zero on any failed check.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


PASSED = 0

# Rows of the CSV a long scan reads (about 70 MB: long enough to be told
# its progress at least once).
BIG_ROWS = 3_000_000


def check(cond, what):
    global PASSED
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    PASSED += 1
    print(f"ok: {what}")


def structured(result):
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)


async def main(binary):
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "people.csv"), "w") as f:
            f.write("id,name\n1,ann\n2,bob\n3,cy\n")
        with open(os.path.join(root, "notes.md"), "w") as f:
            f.write("# Notes\nline two\n")
        with open(os.path.join(root, "big.csv"), "w") as f:
            f.write("id,name,v\n")
            f.writelines(f"{i},name {i},{i % 97}.5\n" for i in range(BIG_ROWS))
        params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                resources = await session.list_resources()
                listed = sorted((r.name, r.size) for r in resources.resources)
                want = sorted((n, os.path.getsize(os.path.join(root, n))) for n in ["big.csv", "notes.md", "people.csv"])
                check(listed == want, f"resources listed: {listed}")
                read = await session.read_resource("plumb://inspect/people.csv")
                inspected = json.loads(read.contents[0].text)
                check(inspected["result"]["row_count"] == 3, "a resource reads as its inspect")
                r = await session.call_tool("data", {"op": "list", "path": "."})
                names = [e["name"] for e in structured(r)["result"]["entries"]]
                check(names == ["big.csv", "notes.md", "people.csv"], f"op list: {names}")
                tools = await session.list_tools()
                names = sorted(t.name for t in tools.tools)
                check(names == ["data", "read"], f"tools listed: {names}")
                for tool in tools.tools:
                    t = tool.model_dump(by_alias=True)
                    a = t["annotations"]
                    hints = (a["readOnlyHint"], a["destructiveHint"], a["idempotentHint"], a["openWorldHint"])
                    check(hints == (True, False, True, False) and t["title"], f"{t['name']}: title and annotations")
                    schema = t["inputSchema"]
                    check(sorted(schema["required"]) == sorted(schema["properties"]), f"{t['name']}: strict schema")
                    # The output schema names each op's answers (the client
                    # validates every structuredContent below against it).
                    out = t["outputSchema"]
                    ops = sorted(b["if"]["properties"]["details"]["properties"]["op"]["const"] for b in out["allOf"])
                    want = ["inspect", "list", "search", "select", "validate"] if t["name"] == "data" else ["read"]
                    answers = {"data": "CsvInspect", "read": "ReadAnswer"}[t["name"]]
                    check(ops == want and answers in out["$defs"], f"{t['name']}: output schema per op {ops}")
                templates = (await session.list_resource_templates()).model_dump(by_alias=True)
                uris = [t["uriTemplate"] for t in templates["resourceTemplates"]]
                check(uris == ["plumb://inspect/{+path}", "plumb://read/{+path}"], f"templates: {uris}")
                # A long scan reports progress to a caller that asks.
                notes = []

                async def progress(done, total, message):
                    notes.append((done, total))

                size = os.path.getsize(os.path.join(root, "big.csv"))
                r = await session.call_tool(
                    "data", {"op": "inspect", "path": "big.csv", "stats": True, "threads": 1},
                    progress_callback=progress)
                check(structured(r)["result"]["row_count"] == BIG_ROWS, "the long scan answered")
                rising = all(a[0] < b[0] for a, b in zip(notes, notes[1:]))
                check(notes and rising and all(t == size and d <= size for d, t in notes),
                      f"progress rose to at most the size: {notes[:3]}... of {size}")
                r = await session.call_tool("data", {"op": "select", "path": "people.csv", "limit": 2})
                s = structured(r)
                check(not r.isError if hasattr(r, "isError") else not r.is_error, "data select succeeded")
                check(s["result"]["rows"] == [["1", "ann"], ["2", "bob"]], "select rows")
                r = await session.call_tool("read", {"path": "notes.md", "offset": 1})
                check(structured(r)["result"]["text"] == "line two\n", "read an interval")
                r = await session.call_tool("data", {"op": "inspect", "path": "../outside.csv"})
                err = r.isError if hasattr(r, "isError") else r.is_error
                check(err is True, "a refusal is an error result")
                check(structured(r)["refusal"]["reason"] == "outside-root", "the typed refusal travels")
                r = await session.call_tool("data", {"op": "select", "file": "people.csv", "offset": "2", "columns": "name"})
                check(structured(r)["result"]["rows"] == [["cy"]], "repaired arguments")
                r = await session.call_tool("data", {"op": "search", "path": "people.csv", "column": "name", "where": "> b", "limit": 1})
                s = structured(r)
                check([h["row"] for h in s["result"]["hits"]] == [1], "a CSV search's first hit")
                check(s["result"]["next_offset"] == 2 and "offset=2" in s["hint"], "the hint names the next search")
                r = await session.call_tool("data", {"op": "search", "path": "notes.md", "pattern": "two"})
                check(structured(r)["result"]["hits"][0]["line"] == 2, "a text search finds its line")
    print(f"python mcp client: {PASSED} checks passed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
