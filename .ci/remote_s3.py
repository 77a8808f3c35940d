"""plumb against an S3-compatible server on loopback (moto in server
mode): objects read through s3:// URLs give the answers the same files
give locally, a tail read fetches a bounded number of bytes, a missing
object is not-found, an object replaced during a scan is refused or read
as it was opened (never a mix of versions), a
store that checks credentials denies a wrong or unprivileged key (a
read-error) and serves a privileged one, and no credential reaches an
answer.

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


def wait_port(port):
    """Waits (up to 10 s) until a server listens on the loopback port."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def start_moto(extra_env=None):
    """A moto server on a free loopback port: (process, endpoint)."""
    port = free_port()
    python = Path(sys.executable)
    server = subprocess.Popen(
        [str(python.parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, **(extra_env or {})),
    )
    wait_port(port)
    return server, f"http://127.0.0.1:{port}"


def aws_env(endpoint, key, secret, **extra):
    env = dict(os.environ)
    env.update(
        AWS_ACCESS_KEY_ID=key,
        AWS_SECRET_ACCESS_KEY=secret,
        AWS_REGION="us-east-1",
        AWS_ENDPOINT_URL=endpoint,
        **extra,
    )
    return env


def replaced_mid_scan(s3, endpoint):
    """An object overwritten while plumb validates it: the answer is a
    read-error saying it changed (a request made after the overwrite,
    pinned by If-Match to the version opened, was refused) or the answer
    the version opened gives (a streamed GET under way is served from the
    version it began with), never a judgement of a mix of the two. The
    new version has a third column, so a mix would show ragged rows."""
    rows = 1_000_000
    body = b"".join(b"%09d,row %09d\n" % (i, i) for i in range(rows))
    s3.put_object(Bucket="plumb-data", Key="moving/big.csv", Body=body)
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as f:
        f.write(body)
        local = f.name
    env = aws_env(endpoint, "plumbtest", SECRET, PLUMB_REMOTE_RANGE_BYTES="65536", PLUMB_REMOTE_READ_AHEAD="0")
    expected = plumb(env, "validate", local, "--threads", "1")
    os.unlink(local)
    args = [PLUMB, "validate", "s3://plumb-data/moving/big.csv", "--threads", "1", "--json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(0.05)
    s3.put_object(Bucket="plumb-data", Key="moving/big.csv", Body=body.replace(b",row ", b",r,w"))
    out, err = proc.communicate()
    if SECRET in out or SECRET in err:
        failures.append("replaced mid-scan: the secret key was echoed")
    try:
        r = json.loads(out)
    except json.JSONDecodeError:
        failures.append(f"replaced mid-scan: not JSON: {out[:200]!r} {err[:200]!r}")
        return
    r.pop("remote", None)
    refused = r.get("reason") == "read-error" and "changed" in r.get("message", "")
    if not refused and r != expected:
        failures.append(f"replaced mid-scan: neither refused nor the first version's answer: {str(r)[:300]}")
    print(f"remote s3: an object replaced mid-scan was {'refused' if refused else 'read as it was opened'}")


def dataset(s3, env):
    """A dataset under a prefix: twelve files with drift planted (a
    column added, a type that turns to text, an empty file, a header
    alone, a file that is not data), read as s3://bucket/prefix/, as a
    glob below it, and as the same files on disk: the same answer but
    for the paths, for inspect, validate and detect."""
    local = Path(tempfile.mkdtemp())
    files = {f"part-{i:02}.csv": "id,amount\n" + "".join(f"{i * 100 + r},{r * 7}\n" for r in range(30)) for i in range(8)}
    files["part-03.csv"] = "id,amount\n" + "".join(f"{r},{'n/a' if r == 17 else r}\n" for r in range(30))
    files["part-08.csv"] = "id,amount,region\n1,2,north\n"
    files["part-09.csv"] = ""
    files["part-10.csv"] = "id,amount\n"
    files["part-11.csv"] = "\x89PNG\r\n\x1a\n"
    for name, text in files.items():
        (local / name).write_bytes(text.encode("latin-1"))
        s3.put_object(Bucket="plumb-data", Key=f"ds/{name}", Body=text.encode("latin-1"))
    s3.put_object(Bucket="plumb-data", Key="ds/.hidden.csv", Body=b"secret\n1\n")

    def normal(r, prefix):
        return json.loads(json.dumps(r).replace(prefix, "ROOT/"))

    for op in ("inspect", "validate", "detect"):
        l = normal(plumb(env, op, str(local), "--threads", "2"), str(local) + "/")
        for url in ("s3://plumb-data/ds/", "s3://plumb-data/ds/*.csv"):
            r = normal(plumb(env, op, url, "--threads", "2"), "s3://plumb-data/ds/")
            r.pop("named", None)
            l.pop("named", None)
            if r != l:
                failures.append(f"dataset {op} {url}: differs from the local answer: {str(r)[:400]} / {str(l)[:400]}")
    r = plumb(env, "inspect", "s3://plumb-data/ds/")
    amount = [c for c in r.get("columns", []) if c["name"] == "amount"]
    if not amount or not amount[0]["type_differs"] or amount[0]["type_differs"].get("record") != 19:
        failures.append(f"dataset: the type change in part-03 at record 19 was not found: {amount}")
    if r.get("totals", {}).get("files") != 12:
        failures.append(f"dataset: 12 files expected (the hidden one skipped): {r.get('totals')}")
    print(f"remote s3: a 12-file dataset under a prefix read as on disk")


def denied():
    """A store that checks credentials (moto counts the first actions as
    set-up, then checks every request): a key it does not know and a key
    without privileges are denied as read-errors, the secret never
    echoed; a key with privileges reads the object."""
    server, endpoint = start_moto({"INITIAL_NO_AUTH_ACTION_COUNT": "7"})
    try:
        setup = dict(endpoint_url=endpoint, aws_access_key_id="setup", aws_secret_access_key="setup", region_name="us-east-1")
        s3 = boto3.client("s3", **setup)
        iam = boto3.client("iam", **setup)
        s3.create_bucket(Bucket="locked")
        s3.put_object(Bucket="locked", Key="people.csv", Body=(ROOT / "examples/data/people.csv").read_bytes())
        iam.create_user(UserName="nobody")
        nobody = iam.create_access_key(UserName="nobody")["AccessKey"]
        iam.create_user(UserName="reader")
        reader = iam.create_access_key(UserName="reader")["AccessKey"]
        iam.put_user_policy(
            UserName="reader",
            PolicyName="read",
            PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
            ),
        )
        url = "s3://locked/people.csv"
        for who, key, secret in [
            ("an unknown key", "AKIAPLUMBUNKNOWN0000", SECRET),
            ("a key without privileges", nobody["AccessKeyId"], nobody["SecretAccessKey"]),
        ]:
            r = plumb(aws_env(endpoint, key, secret), "inspect", url)
            if r.get("reason") != "read-error" or "denied" not in r.get("message", ""):
                failures.append(f"denied, {who}: {str(r)[:300]}")
            if secret in json.dumps(r):
                failures.append(f"denied, {who}: the secret was echoed")
        r = plumb(aws_env(endpoint, reader["AccessKeyId"], reader["SecretAccessKey"]), "inspect", url)
        if r.get("ok") is False or r.get("format") != "csv":
            failures.append(f"a privileged key was refused: {str(r)[:300]}")
    finally:
        server.terminate()
        server.wait()


def main():
    server, endpoint = start_moto()
    try:
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

        env = aws_env(endpoint, "plumbtest", SECRET)
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
        dataset(s3, env)
        replaced_mid_scan(s3, endpoint)
        print(f"remote s3: {len(samples)} samples and a {size}-byte log through moto, tail fetched {fetched} bytes, {len(failures)} failures")
    finally:
        server.terminate()
        server.wait()
    denied()
    for f in failures[:20]:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
