"""plumb against an S3-compatible server on loopback (moto in server
mode): objects read through s3:// URLs give the answers the same files
give locally, a tail read fetches a bounded number of bytes, a missing
object is not-found, and no credential reaches an answer.

Run by .ci/run as: python .ci/remote_s3.py target/release/plumb
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3

PLUMB = sys.argv[1]
ROOT = Path(__file__).resolve().parent.parent
SECRET = "plumb-test-secret-9f3c2a"
failures = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plumb(env, *args):
    out = subprocess.run([PLUMB, *args, "--json"], capture_output=True, text=True, env=env)
    if SECRET in out.stdout or SECRET in out.stderr:
        failures.append(f"{args}: the secret key was echoed")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        failures.append(f"{args}: not JSON: {out.stdout[:200]!r} {out.stderr[:200]!r}")
        return {}


def main():
    port = free_port()
    python = Path(sys.executable)
    server = subprocess.Popen(
        [str(python.parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        s3 = boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="plumbtest",
            aws_secret_access_key=SECRET,
            region_name="us-east-1",
        )
        s3.create_bucket(Bucket="plumb-data")
        samples = ["people.csv", "people.parquet", "people.xlsx"]
        for name in samples:
            s3.upload_file(str(ROOT / "examples/data" / name), "plumb-data", f"samples/{name}")
        # A larger text object, for the bytes a tail read fetches.
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            for i in range(400_000):
                f.write(f"2026-12-04T00:00:{i % 60:02d} line {i} of the log\n")
            big = f.name
        s3.upload_file(big, "plumb-data", "logs/big.log")

        env = dict(os.environ)
        env.update(
            AWS_ACCESS_KEY_ID="plumbtest",
            AWS_SECRET_ACCESS_KEY=SECRET,
            AWS_REGION="us-east-1",
            AWS_ENDPOINT_URL=endpoint,
        )
        for name in samples:
            local = str(ROOT / "examples/data" / name)
            url = f"s3://plumb-data/samples/{name}"
            for op in (["inspect"], ["select"], ["select", "--offset", "-2"], ["validate"]):
                r = plumb(env, *op, url)
                l = plumb(env, *op, local)
                remote = r.pop("remote", None)
                if remote is None or remote.get("url") != url or not remote.get("bytes_fetched"):
                    failures.append(f"{url} {op}: remote report {remote}")
                if r != l:
                    failures.append(f"{url} {op}: differs from the local answer")
        r = plumb(env, "read", "s3://plumb-data/logs/big.log", "--offset", "-5")
        size = os.path.getsize(big)
        if not r.get("text", "").endswith("line 399999 of the log\n"):
            failures.append(f"tail: {r.get('text')!r}")
        fetched = r.get("remote", {}).get("bytes_fetched", size)
        if fetched > 1 << 20:
            failures.append(f"a tail read of {size} bytes fetched {fetched}")
        r = plumb(env, "inspect", "s3://plumb-data/samples/nope.csv")
        if r.get("reason") != "not-found":
            failures.append(f"missing object: {r}")
        r = plumb(env, "inspect", "s3://no-such-bucket/x.csv")
        if r.get("ok") is not False:
            failures.append(f"missing bucket: {r}")
        print(f"remote s3: {len(samples)} samples and a {size}-byte log through moto, tail fetched {fetched} bytes, {len(failures)} failures")
    finally:
        server.terminate()
        server.wait()
    for f in failures[:20]:
        print("  " + f)
    sys.exit(1 if failures else 0)


main()
