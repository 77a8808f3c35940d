"""The remote speed bars, measured (not asserted) on loopback: a
sequential validate of an object from an S3-compatible server beside the
same validate of the local file plus a download of the object over one
GET (curl: the request plumb's client makes, without plumb), and the
tail read of a larger object.

Servers: s3rver (npm; serves a range from its file) and moto (PyPI;
reads the whole object for every ranged GET, about 165 ms per request on
a 256 MiB object whatever the range, so what it measures is mostly its
own request count). Either is skipped when not given.

    python .ci/remote_bench.py target/release/plumb --mb 256 \\
        --s3rver path/to/node_modules/.bin/s3rver [--moto]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3

sys.path.insert(0, str(Path(__file__).resolve().parent))
import remote_s3 as common  # noqa: E402  (free_port(), wait_port(), start_moto())


def generate(path, size):
    with open(path, "w") as f:
        f.write("id,key,name,city,amount\n")
        i, written = 0, 0
        lines = []
        while written < size:
            line = f"{i},k{i * 2654435761 % 2**32:x},name {i % 1000},city {i % 5},{i % 10007}.{i % 100:02d}\n"
            lines.append(line)
            written += len(line)
            i += 1
            if len(lines) == 10_000:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))


def best(cmd, env=None, runs=3):
    times, last = [], None
    for _ in range(runs):
        t = time.perf_counter()
        last = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
    return min(times), last


def bench(name, endpoint, key, plumb, local, tail_local):
    s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=key, region_name="us-east-1")
    s3.create_bucket(Bucket="bench")
    s3.upload_file(local, "bench", "data.csv")
    s3.upload_file(tail_local, "bench", "tail.csv")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=key, AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint)
    remote, out = best([plumb, "validate", "s3://bench/data.csv", "--json"], env)
    report = json.loads(out.stdout).get("remote", {})
    local_t, _ = best([plumb, "validate", local, "--json"])
    download, _ = best(["curl", "-s", "-o", "/dev/null", f"{endpoint}/bench/data.csv"])
    tail, out = best([plumb, "read", "s3://bench/tail.csv", "--offset", "-5", "--json"], env)
    tail_report = json.loads(out.stdout).get("remote", {})
    print(
        f"{name}: validate remote {remote:.2f} s ({report.get('requests')} requests) | local {local_t:.2f} s + download {download:.2f} s"
        f" = {local_t + download:.2f} s | ratio {remote / (local_t + download):.2f} (bar 1.3)"
    )
    print(
        f"{name}: tail of {os.path.getsize(tail_local) >> 20} MiB: {tail * 1000:.0f} ms (bar 100), "
        f"{tail_report.get('bytes_fetched')} bytes in {tail_report.get('requests')} requests"
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plumb")
    ap.add_argument("--mb", type=int, default=256)
    ap.add_argument("--tail-mb", type=int, default=1024)
    ap.add_argument("--s3rver")
    ap.add_argument("--moto", action="store_true")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="plumb-remote-bench-"))
    try:
        local = str(work / "data.csv")
        generate(local, a.mb << 20)
        tail_local = str(work / "tail.csv")
        generate(tail_local, a.tail_mb << 20)
        if a.s3rver:
            port = common.free_port()
            store = work / "s3rver"
            store.mkdir()
            with subprocess.Popen(
                [a.s3rver, "-d", str(store), "-a", "127.0.0.1", "-p", str(port), "--silent"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ) as server:
                try:
                    common.wait_port(port)
                    bench("s3rver", f"http://127.0.0.1:{port}", "S3RVER", a.plumb, local, tail_local)
                finally:
                    server.terminate()
        if a.moto:
            server, endpoint = common.start_moto()
            try:
                bench("moto", endpoint, "plumbbench", a.plumb, local, tail_local)
            finally:
                server.terminate()
                server.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
