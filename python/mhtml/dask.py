"""mhtml on a Dask cluster: the module mapped over many archive files.

    from dask.distributed import Client
    import mhtml.dask
    client = Client("tcp://scheduler:8786")          # or LocalCluster() on one machine
    bag = mhtml.dask.bag("/shared/crawl/**/*.mhtml", job="check")
    df = mhtml.dask.dataframe("/shared/crawl/**/*.mhtml")   # one row per archive (pandas)
    mhtml.dask.to_jsonlines(paths, "/shared/out/")          # part-*.jsonl, one line per archive
    mhtml.dask.extract_all(paths, "/shared/pages/")         # a folder per archive

Each task reads one archive with the module (the GIL is released while it works, so a worker
with several threads uses several cores) and returns a summary dict like one line of
`mhtml batch`: key, file, size, parts, leaves, diagnostics by severity, then the job's fields
(ls: decoded_bytes, root; check: findings by level and their codes; refs: references,
to_parts, external), ok, and error when it failed. A failure is a row, never a lost batch.

Paths are read where the workers run: a shared file system (NFS, a cluster file system), or
any URL fsspec opens ("s3://...", "gs://...", with that fsspec backend installed on the
workers): those are read into memory and parsed from bytes. Every worker needs mhtml
installed (scripts/demo.sh installs it for Debian's python3). Mailboxes are not split here:
give files of one archive or message each (`mhtml batch` splits mailboxes).
"""
import glob as _glob
import json as _json
import os as _os

import mhtml as _mhtml

JOBS = ("ls", "check", "refs")

_SEVERITIES = ("note", "warning", "ambiguous", "error")


def _expand(paths):
    """A glob string, a path, or a list of them -> a sorted list of file paths or URLs.

    A name that exists is itself, even with '*', '?' or '[' in it; any other with those is a
    glob: on the file system, or through fsspec for a URL ("s3://bucket/crawl/*.mhtml"; for
    http and https only '*' and '[', a '?' there starts a query)."""
    if isinstance(paths, (str, _os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = _os.fspath(p)
        if "://" in p:
            web = p.split("://", 1)[0].lower() in ("http", "https")
            if any(c in p for c in ("*[" if web else "*?[")):
                import fsspec  # only for URLs
                fs, path = fsspec.core.url_to_fs(p)
                if fs.exists(path):
                    out.append(p)
                else:
                    out.extend(fs.unstrip_protocol(f) for f in fs.glob(path) if fs.isfile(f))
            else:
                out.append(p)
        elif any(c in p for c in "*?[") and not _os.path.lexists(p):
            out.extend(f for f in _glob.glob(p, recursive=True) if _os.path.isfile(f))
        else:
            out.append(p)
    return sorted(set(out))


def _open(path):
    if "://" in path:
        import fsspec  # only for URLs
        with fsspec.open(path, "rb") as f:
            return _mhtml.parse(f.read())
    # Read, not mapped: a file cut on a shared file system while it is mapped kills the worker
    # (SIGBUS); read, it is at worst a failed row.
    return _mhtml.parse(path, mmap=False)


def summarize(path, job="ls"):
    """The summary of one archive (a dict, as one line of `mhtml batch --<job>`)."""
    if job not in JOBS:
        raise ValueError(f"job must be one of {JOBS}")
    row = {"key": path, "file": path}
    try:
        doc = _open(path)
        row["size"] = doc.size
        row["parts"] = len(doc)
        decoded = 0
        if job == "ls":
            leaves = 0
            for data, ends in doc.iter_decoded():  # into one reused buffer
                leaves += len(ends)
                decoded += len(data)
                del data, ends
            row["leaves"] = leaves
        else:
            row["leaves"] = sum(1 for p in doc.parts if p.is_leaf)
        counts = dict.fromkeys(_SEVERITIES, 0)
        for d in doc.diagnostics:
            counts[d.severity] += 1
        row["diagnostics"] = counts
        if job == "ls":
            row["decoded_bytes"] = decoded
            row["root"] = doc.root.path
        elif job == "check":
            findings = doc.check()
            row["findings"] = {
                "errors": sum(f.level == "error" for f in findings),
                "warnings": sum(f.level == "warning" for f in findings),
                "notes": sum(f.level == "note" for f in findings),
            }
            row["codes"] = sorted({f.code for f in findings})
        else:
            refs = [r for r in doc.references() if r.kind != "base"]
            row["references"] = len(refs)
            row["to_parts"] = sum(r.target is not None for r in refs)
            row["external"] = sum(r.target is None and not r.same_document for r in refs)
        row["ok"] = True
    except Exception as e:  # a failed archive is a row
        row["error"] = f"{type(e).__name__}: {e}"
        row["ok"] = False
    return row


def bag(paths, job="ls", npartitions=None):
    """A dask.bag of summaries (dicts), one per archive."""
    import dask.bag as db
    files = _expand(paths)
    n = npartitions or max(1, min(len(files), 256))
    return db.from_sequence(files, npartitions=n).map(summarize, job=job)


def _flat(row):
    out = {k: v for k, v in row.items() if not isinstance(v, (dict, list))}
    for k, v in row.items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                out[f"{k}_{kk}"] = vv
        elif isinstance(v, list):
            out[k] = " ".join(map(str, v))
    return out


def _row_of(row, columns):
    """A flattened row with every column (a failed archive has only key, file, error, ok)."""
    flat = _flat(row)
    return {c: flat.get(c) for c in columns}


def dataframe(paths, job="ls", npartitions=None):
    """A dask DataFrame of the summaries, nested fields flattened (diagnostics_error, ...);
    the columns are objects, so that a failed archive's row (None where it has nothing)
    fits beside the others."""
    import pandas as pd
    columns = list(_flat(_example(job)).keys())
    meta = pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    rows = bag(paths, job, npartitions).map(_row_of, columns=columns)
    return rows.to_dataframe(meta=meta)


def _example(job):
    row = {"key": "", "file": "", "size": 0, "parts": 0, "leaves": 0,
           "diagnostics": dict.fromkeys(_SEVERITIES, 0)}
    if job == "ls":
        row.update(decoded_bytes=0, root="")
    elif job == "check":
        row.update(findings={"errors": 0, "warnings": 0, "notes": 0}, codes=[])
    else:
        row.update(references=0, to_parts=0, external=0)
    row.update(ok=True, error=None)
    return row


def to_jsonlines(paths, out_dir, job="ls", npartitions=None):
    """Writes the summaries as JSON lines, one file per partition (out_dir/part-N.jsonl);
    returns the file names."""
    _os.makedirs(out_dir, exist_ok=True)
    return bag(paths, job, npartitions).map(_json.dumps).to_textfiles(
        _os.path.join(out_dir, "part-*.jsonl"))


def _extract_one(path, out_dir, offline):
    row = {"key": path, "file": path}
    try:
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in path)[-120:]
        import hashlib
        target = _os.path.join(out_dir, safe.lstrip(".") + "-" +
                               hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16])
        report = _open(path).extract(target, force=True, offline=offline)
        row.update(output=target, files=len(report["files"]), ok=True)
    except Exception as e:
        row.update(error=f"{type(e).__name__}: {e}", ok=False)
    return row


def extract_all(paths, out_dir, offline=False, npartitions=None):
    """Extracts every archive into a folder of out_dir (as `mhtml extract`); computes and
    returns the rows (output folder, files, ok)."""
    import dask.bag as db
    files = _expand(paths)
    n = npartitions or max(1, min(len(files), 256))
    return db.from_sequence(files, npartitions=n).map(_extract_one, out_dir=out_dir,
                                                      offline=offline).compute()
