"""What the reader tests of `mhtml pack` share (python_email_pack.py, gmime_pack.py): pack
every test site with every method and in mail mode, and pair a reader's leaves with the parts
the --json report lists."""
import json
import pathlib
import shutil
import subprocess

RUNS = [(m, ["--method", m]) for m in ("content-location", "cid", "filename")]
RUNS.append(("mail", ["--mail", "--from", "Ann <ann@e.example>", "--to", "bob@e.example"]))


def pack_all(cli, sites, tmp):
    """Yields (site folder, run name, output file, report) for every site and run; report is
    None when pack failed (exit 2), and then the output file's name says which."""
    tmp = pathlib.Path(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for site in sorted(p for p in pathlib.Path(sites).iterdir() if p.is_dir()):
        for name, extra in RUNS:
            out = tmp / f"{site.name}-{name}.mhtml"
            run = subprocess.run([cli, "pack", str(site), "--json", "-o", str(out)] + extra,
                                 capture_output=True)
            if run.returncode not in (0, 1):
                print(f"{out.name}: exit {run.returncode}: {run.stderr.decode(errors='replace')}")
                yield site, name, out, None
                continue
            yield site, name, out, json.loads(run.stdout)


def pair_leaves(name, leaves, report, type_of):
    """The reader's leaves paired with the report's written parts, in order, and the problems
    found: in mail mode the first leaf is the text/plain alternative the writer made (not a
    resource); the counts must agree. type_of(leaf) gives a leaf's media type."""
    problems = []
    if name == "mail":
        if not leaves or type_of(leaves[0]) != "text/plain":
            problems.append("mail: no text/plain alternative first")
        else:
            leaves = leaves[1:]
    written = [p for p in report["parts"] if p["written"]]
    if len(leaves) != len(written):
        problems.append(f"{len(leaves)} leaves, the report lists {len(written)} parts")
    return list(zip(leaves, written)), problems
