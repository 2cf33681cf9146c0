"""mhtml.dask on a LocalCluster of two worker processes (loopback only): its rows equal the
lines of `mhtml batch` over the same archives, and the DataFrame, JSON lines and extract
helpers write what they say."""
import json
import os
import pathlib
import subprocess

import pytest

dask = pytest.importorskip("dask")  # python3-dask: installed by scripts/setup-deps.sh
distributed = pytest.importorskip("distributed")

import mhtml
import mhtml.dask

CLI = os.environ["MHTML_CLI"]
DATA = pathlib.Path(os.environ["MHTML_TEST_DATA"])


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    d = tmp_path_factory.mktemp("archives")
    corpus = sorted(p for p in (DATA / "corpus").iterdir() if p.suffix in (".mhtml", ".mht"))[:16]
    for p in corpus:
        (d / p.name).write_bytes(p.read_bytes())
    page = (DATA / "corpus" / "blink__frames.mhtml").read_bytes()
    (d / "cut.mhtml").write_bytes(page[: len(page) // 2])
    (d / "empty.mhtml").write_bytes(b"")
    return d


def batch_lines(folder, job):
    r = subprocess.run([CLI, "batch", str(folder), f"--{job}", "--jobs", "2"], capture_output=True)
    assert r.returncode == 0, r.stderr
    return {json.loads(l)["key"]: json.loads(l) for l in r.stdout.decode().splitlines()}


@pytest.mark.parametrize("job", ["ls", "check", "refs"])
def test_rows_equal_the_batch_command(client, archives, job):
    rows = mhtml.dask.bag(str(archives / "*"), job=job).compute()
    want = batch_lines(archives, job)
    got = {os.path.realpath(r["key"]): r for r in rows}
    assert set(got) == set(want)
    for key, line in want.items():
        row = dict(got[key])
        row["key"] = row["file"] = key
        assert row == line, key


def test_dataframe_jsonlines_and_extract(client, archives, tmp_path):
    df = mhtml.dask.dataframe(str(archives / "*"), job="check").compute()
    assert len(df) == len(list(archives.iterdir()))
    assert {"key", "parts", "findings_errors", "diagnostics_error", "codes", "ok"} <= set(df.columns)
    assert df["ok"].all()
    files = mhtml.dask.to_jsonlines(str(archives / "*"), tmp_path / "lines", job="ls")
    lines = [json.loads(l) for f in files for l in open(f)]
    assert len(lines) == len(df)
    rows = mhtml.dask.extract_all(str(archives / "*"), tmp_path / "pages")
    assert all(r["ok"] for r in rows)
    for r in rows:
        assert (pathlib.Path(r["output"]) / "index.html").exists() or r["files"] >= 1


def test_a_failure_is_a_row(client, archives, tmp_path):
    rows = mhtml.dask.bag([str(tmp_path / "missing.mhtml")]).compute()
    assert rows[0]["ok"] is False and "FileNotFoundError" in rows[0]["error"]
    # In a DataFrame too, beside the rows of archives that were read.
    paths = [str(p) for p in sorted(archives.iterdir())][:3] + [str(tmp_path / "missing.mhtml")]
    df = mhtml.dask.dataframe(paths).compute()
    assert len(df) == 4
    assert list(df["ok"]) == [True, True, True, False]
    assert df["parts"].iloc[3] is None


def test_globs_on_disk_and_through_fsspec(archives, tmp_path):
    # _expand needs no cluster: a glob on disk, the same through fsspec (file:// URLs), and a
    # name that exists taken as it is, even with glob characters in it.
    on_disk = mhtml.dask._expand(str(archives / "*.mht"))
    assert on_disk and all(p.endswith(".mht") for p in on_disk)
    urls = mhtml.dask._expand("file://" + str(archives) + "/*.mht")
    assert urls == ["file://" + p for p in on_disk]
    # '?' and '[...]' in URLs too (fsspec's own parsing globs '*' only).
    assert mhtml.dask._expand("file://" + str(archives) + "/*.mh?") == urls
    assert mhtml.dask._expand("file://" + str(archives) + "/[c]*.mht") == [
        u for u in urls if u.rsplit("/", 1)[1].startswith("c")]
    odd = tmp_path / "page[1].mhtml"
    odd.write_bytes((archives / "empty.mhtml").read_bytes())
    assert mhtml.dask._expand(str(odd)) == [str(odd)]
    assert mhtml.dask._expand("file://" + str(odd)) == ["file://" + str(odd)]
    assert mhtml.dask._expand(str(tmp_path / "nothing-*.mhtml")) == []
