"""plumb against an Azure Blob emulator on loopback (Azurite, from npm):
az:// objects give the answers the same files give locally, a tail read
fetches a bounded number of bytes, a missing blob is not-found, and a
wrong account key is denied as a read-error without being echoed.

Run by .ci/run as:
    python .ci/remote_azure.py target/release/plumb path/to/azurite-blob
"""

import os
import subprocess
import sys
from pathlib import Path

from azure.storage.blob import BlobServiceClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import remote_s3 as common  # noqa: E402  (plumb(), failures, free_port())

PLUMB = sys.argv[1]
AZURITE = sys.argv[2]
ROOT = Path(__file__).resolve().parent.parent
# Azurite's published development account: not a secret.
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
WRONG_KEY = "cGx1bWItd3Jvbmcta2V5LTlmM2MyYS1wbHVtYi13cm9uZy1rZXk="


def main():
    port = common.free_port()
    with subprocess.Popen(
        [AZURITE, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--inMemoryPersistence", "--silent", "--skipApiVersionCheck"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as server:
        try:
            run(port)
        finally:
            server.terminate()
    for f in common.failures[:20]:
        print("  " + f)
    sys.exit(1 if common.failures else 0)


def run(port):
    common.wait_port(port)
    endpoint = f"http://127.0.0.1:{port}/{ACCOUNT}"
    blobs = BlobServiceClient.from_connection_string(
        f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};BlobEndpoint={endpoint};"
    )
    container = blobs.create_container("plumb-data")
    samples = ["people.csv", "people.parquet", "people.xlsx"]
    for name in samples:
        container.upload_blob(f"samples/{name}", (ROOT / "examples/data" / name).read_bytes())
    lines = [f"2026-12-04T00:00:{i % 60:02d} line {i} of the log\n" for i in range(400_000)]
    log = "".join(lines).encode()
    container.upload_blob("logs/big.log", log)

    env = dict(os.environ)
    for k in [k for k in env if k.startswith(("AZURE_", "AWS_", "GOOGLE_"))]:
        del env[k]
    env.update(
        AZURE_STORAGE_ACCOUNT_NAME=ACCOUNT,
        AZURE_STORAGE_ACCOUNT_KEY=KEY,
        AZURE_STORAGE_USE_EMULATOR="true",
        AZURITE_BLOB_STORAGE_URL=f"http://127.0.0.1:{port}",
    )
    for name in samples:
        local = str(ROOT / "examples/data" / name)
        url = f"az://plumb-data/samples/{name}"
        for op in (["inspect"], ["select"], ["select", "--offset", "-2"], ["validate"]):
            r = common.plumb(env, *op, url)
            l = common.plumb(env, *op, local)
            remote = r.pop("remote", None)
            if remote is None or remote.get("url") != url or not remote.get("bytes_fetched"):
                common.failures.append(f"{url} {op}: remote report {remote}")
            if r != l:
                common.failures.append(f"{url} {op}: differs from the local answer")
    r = common.plumb(env, "read", "az://plumb-data/logs/big.log", "--offset", "-5")
    if r.get("text") != "".join(lines[-5:]):
        common.failures.append(f"tail: {str(r)[:300]}")
    fetched = r.get("remote", {}).get("bytes_fetched", len(log))
    if fetched > 1 << 20:
        common.failures.append(f"a tail read of {len(log)} bytes fetched {fetched}")
    r = common.plumb(env, "inspect", "az://plumb-data/samples/nope.csv")
    if r.get("reason") != "not-found":
        common.failures.append(f"missing blob: {r}")
    wrong = dict(env, AZURE_STORAGE_ACCOUNT_KEY=WRONG_KEY)
    r = common.plumb(wrong, "inspect", "az://plumb-data/samples/people.csv")
    if r.get("reason") != "read-error" or "denied" not in r.get("message", ""):
        common.failures.append(f"a wrong key: {str(r)[:300]}")
    if WRONG_KEY in str(r):
        common.failures.append("a wrong key was echoed")
    print(
        f"remote azure: {len(samples)} samples and a {len(log)}-byte log through Azurite, "
        f"tail fetched {fetched} bytes, {len(common.failures)} failures"
    )


if __name__ == "__main__":
    main()
