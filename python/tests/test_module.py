"""The Python module against the command-line tool: over every archive of the corpus the
module's parts, references and findings equal the CLI's JSON (ls, refs, check), and inline and
extract write the same outputs. Then what only the module has: zero-copy views, inputs of every
kind, errors, and the GIL released while it works.

Run by ctest (python.pytest) with PYTHONPATH at the built module, MHTML_CLI the tool and
MHTML_TEST_DATA the project's tests/data.
"""
import base64
import ctypes
import hashlib
import json
import os
import pathlib
import subprocess
import threading
import time

import pytest

import mhtml

CLI = os.environ["MHTML_CLI"]
DATA = pathlib.Path(os.environ["MHTML_TEST_DATA"])
CORPUS = sorted(p for p in (DATA / "corpus").iterdir()
                if p.suffix.lower() in (".mhtml", ".mht", ".eml"))


def cli_json(*args):
    r = subprocess.run([CLI, *args], capture_output=True)
    assert r.returncode in (0, 1), r.stderr.decode(errors="replace")
    return json.loads(r.stdout)


def test_the_corpus_is_there():
    assert len(CORPUS) > 50


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_parts_equal_the_cli(path):
    want = cli_json("ls", "--json", "--hash", str(path))
    doc = mhtml.parse(path)
    assert doc.size == want["size"]
    assert doc.snapshot_location == want["snapshot_location"]
    roots = {r["root"] for r in doc.related if r["root"] is not None}
    assert [(r["path"], r["root"]) for r in doc.related] == \
        [(r["path"], r["root"]) for r in want["related"]]
    parts = doc.parts
    assert len(parts) == len(want["parts"])
    for p, w in zip(parts, want["parts"]):
        assert p.path == w["path"]
        assert p.content_type == w["content_type"]
        assert p.parameters == w["parameters"]
        assert p.encoding == w["encoding"]
        assert p.disposition == w["disposition"]
        assert p.content_id == w["content_id"]
        assert p.content_location == w["content_location"]
        assert p.offset == w["offset"]
        assert p.in_decoded_body == w["decoded"]
        assert p.encoded_size == w["encoded_size"]
        assert p.is_leaf == w["leaf"]
        assert (p.path in roots) == w["root"]
        assert p.base == w["base"]
        assert p.resolved_location == w["resolved_location"]
        if p.is_leaf:
            body = p.decode()
            assert len(body) == w["decoded_size"]
            assert hashlib.sha256(body).hexdigest() == w["sha256"]
    assert doc.decode_leaves() == [p.decode() for p in parts if p.is_leaf]
    assert chunked_leaves(doc, 1 << 12) == doc.decode_leaves()


def chunked_leaves(doc, chunk_size):
    """The leaves' bodies through Document.iter_decoded."""
    out = []
    for data, ends in doc.iter_decoded(chunk_size=chunk_size):
        assert ends.format == "Q" and data.readonly and ends[-1] == len(data)
        begin = 0
        for end in ends:
            out.append(bytes(data[begin:end]))
            begin = end
    return out


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


def address(view):
    """Where a buffer's octets are (CPython's PyObject_GetBuffer)."""
    b = _PyBuffer()
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
    assert get(view, ctypes.byref(b), 0) == 0
    at = b.buf
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.POINTER(_PyBuffer)]
    release(ctypes.byref(b))
    return at


def test_iter_decoded_reuses_its_buffer_only_when_no_view_is_alive():
    doc = mhtml.parse(DATA / "corpus" / "blink__frames.mhtml")
    leaves = doc.decode_leaves()
    assert len(leaves) > 4
    # One leaf a chunk (chunk_size 1): each chunk is that leaf.
    it = doc.iter_decoded(chunk_size=1)
    data, ends = next(it)
    assert bytes(data) == leaves[0]
    kept_at = address(data)
    # Its views alive: the next chunk is written elsewhere, and the kept one stays as it was.
    second, second_ends = next(it)
    assert bytes(second) == leaves[1] and address(second) != kept_at
    assert bytes(data) == leaves[0]
    # No view of the last chunk alive: the next one is written into the same buffer.
    second_at = address(second)
    del second, second_ends
    third, third_ends = next(it)
    assert bytes(third) == leaves[2] and address(third) == second_at
    del third, third_ends
    fourth, fourth_ends = next(it)
    assert bytes(fourth) == leaves[3] and address(fourth) == second_at
    assert bytes(data) == leaves[0]  # never rewritten
    del fourth, fourth_ends
    assert [bytes(c[0]) for c in it] == leaves[4:]
    # The views keep the chunk alive after the document and the iterator are gone.
    data, ends = next(doc.iter_decoded())
    del doc, it
    assert bytes(data[: ends[0]]) == leaves[0]
    with pytest.raises(TypeError):
        data[0] = 0


def test_iter_decoded_of_a_document_without_leaves_and_with_chunk_size_zero():
    assert list(mhtml.parse(b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b--\r\n")
                .iter_decoded()) == []
    doc = mhtml.parse(DATA / "corpus" / "blink__frames.mhtml")
    assert chunked_leaves(doc, 0) == doc.decode_leaves()


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_references_equal_the_cli(path):
    want = cli_json("refs", "--json", str(path))
    got = mhtml.parse(path).references()
    assert len(got) == len(want)
    for r, w in zip(got, want):
        assert (r.part, r.kind, r.element, r.attribute, r.offset, r.length, r.raw, r.url,
                r.resolved, r.target, r.same_document) == \
            (w["part"], w["kind"], w["element"], w["attribute"], w["offset"], w["length"],
             w["raw"], w["url"], w["resolved"], w["target"], w["same_document"])


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_findings_equal_the_cli(path):
    want = cli_json("check", "--json", "--max-diagnostics", "1000000", str(path))
    got = mhtml.parse(path).check()
    assert [(f.requirement, f.level, f.code, f.path, f.offset, f.message) for f in got] == \
        [(w["requirement"], w["level"], w["code"], w["part"], w["offset"], w["message"])
         for w in want["findings"]]


INLINE_SAMPLES = [p for p in CORPUS if p.name.startswith(("chromium__", "blink__"))][:8]


@pytest.mark.parametrize("path", INLINE_SAMPLES, ids=[p.name for p in INLINE_SAMPLES])
def test_inline_and_extract_write_what_the_cli_writes(path, tmp_path):
    doc = mhtml.parse(path)
    subprocess.run([CLI, "inline", str(path), "-o", str(tmp_path / "cli.html")], check=True,
                   capture_output=True)
    assert doc.inline() == (tmp_path / "cli.html").read_bytes()
    report = doc.extract(tmp_path / "module")
    subprocess.run([CLI, "extract", str(path), "-o", str(tmp_path / "cli")], check=True,
                   capture_output=True)
    files = sorted(f["file"] for f in report["files"])
    cli_files = sorted(str(p.relative_to(tmp_path / "cli"))
                       for p in (tmp_path / "cli").rglob("*")
                       if p.is_file() and p.name != "manifest.json")
    assert files == cli_files
    for f in files:
        assert (tmp_path / "module" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes()
    with pytest.raises(OSError):  # the folder is there now
        doc.extract(tmp_path / "module")
    doc.extract(tmp_path / "module", force=True)


PAGE = (b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b; type=text/html\r\n\r\n"
        b"--b\r\nContent-Type: text/html; charset=utf-8\r\nContent-Location: http://e.example/\r\n\r\n"
        b"<img src=a.png><link rel=stylesheet href=cid:s@x>\r\n"
        b"--b\r\nContent-Type: image/png\r\nContent-Location: http://e.example/a.png\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + base64.b64encode(b"\x89PNG-data") + b"\r\n"
        b"--b\r\nContent-Type: text/css\r\nContent-ID: <s@x>\r\n\r\nbody{}\r\n--b--\r\n")


def test_inputs_of_every_kind(tmp_path):
    f = tmp_path / "p.mhtml"
    f.write_bytes(PAGE)
    for source in (PAGE, bytearray(PAGE), memoryview(PAGE), str(f), f):
        doc = mhtml.parse(source)
        assert [p.path for p in doc.parts] == ["", "1", "2", "3"]
        assert doc.root.path == "1"
        assert doc.resolve("a.png").decode() == b"\x89PNG-data"
        assert doc.resolve("cid:s@x").path == "3"
        assert doc.resolve("http://e.example/missing") is None
        assert doc.find("2").content_type == "image/png"
        assert doc.find(".").path == "" and doc.find("9") is None
    # A bytearray is copied: changing it later changes nothing.
    b = bytearray(PAGE)
    doc = mhtml.parse(b)
    b[:] = b"x" * len(b)
    assert doc.find("3").decode() == b"body{}"


def test_views_are_zero_copy_and_keep_the_document(tmp_path):
    f = tmp_path / "p.mhtml"
    f.write_bytes(PAGE)
    doc = mhtml.parse(f)
    view = doc.find("2").raw_body
    assert isinstance(view, memoryview) and view.readonly
    assert bytes(view) == base64.b64encode(b"\x89PNG-data")  # the CRLF is the delimiter's
    whole = doc.bytes
    assert bytes(whole) == PAGE
    part = doc.find("3")
    del doc
    assert bytes(view).startswith(base64.b64encode(b"\x89PNG-data"))
    assert part.decode() == b"body{}" and bytes(whole) == PAGE
    with pytest.raises(TypeError):
        view[0] = 0


def test_headers_diagnostics_and_errors():
    doc = mhtml.parse(b"Content-Type: text/plain\nX-A: 1\nX-A: 2\n\nhi\n=\n")
    assert doc.find("").headers == [("Content-Type", "text/plain"), ("X-A", "1"), ("X-A", "2")]
    assert doc.find("").header("x-a") == "1" and doc.find("").header("nope") is None
    bad = mhtml.parse(b"Content-Type: multipart/mixed; boundary=x\n\n--x\n\nunclosed")
    codes = {d.code for d in bad.diagnostics}
    assert "missing_close_delimiter" in codes
    assert all(isinstance(d.offset, int) for d in bad.diagnostics)
    with pytest.raises(FileNotFoundError):
        mhtml.parse("/nonexistent/x.mhtml")
    with pytest.raises(TypeError):
        mhtml.parse(12)
    deep = b"".join(b"Content-Type: multipart/mixed; boundary=%d\n\n--%d\n" % (i, i) for i in range(50))
    assert len(mhtml.parse(deep, max_depth=5).parts) < len(mhtml.parse(deep).parts)


def test_url_functions():
    assert mhtml.url.resolve("thismessage:/a/b", "../c") == "thismessage:/c"
    assert mhtml.url.resolve("not absolute", "x") is None
    assert mhtml.url.cid_to_content_id("cid:a%40b") == "<a@b>"
    assert mhtml.url.content_id_to_cid("<a@b>") == "cid:a@b"
    assert mhtml.url.mid_to_ids("mid:m@x/c@x") == ("<m@x>", "<c@x>")
    assert mhtml.url.ids_to_mid("<m@x>", "<c@x>") == "mid:m@x/c@x"
    assert mhtml.url.id_key(" <a@b> (c)") == "a@b"
    with pytest.raises(ValueError):
        mhtml.url.cid_to_content_id("cid:")


def test_help_and_version():
    assert mhtml.__version__
    assert "memoryview" in mhtml.Part.raw_body.__doc__
    assert "path" in mhtml.parse.__doc__


def test_the_gil_is_released_while_parsing():
    # A 60 MB document: while one thread parses and decodes it, this one keeps running.
    body = base64.encodebytes(os.urandom(45 << 20))
    big = b"Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n" + body
    done = threading.Event()

    def work():
        for _ in range(3):
            mhtml.parse(big).find("").decode()
        done.set()

    t = threading.Thread(target=work)
    ticks = 0
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0)
    t.join()
    # With the GIL held for the whole parse this thread would run only between calls (a
    # GIL-holding call of the same length, bytes.translate, lets it run about 6 times).
    assert ticks > 100


def test_strided_buffers_are_read_in_order():
    view = memoryview(PAGE)
    for strided in (view[::-1], view[::2], view[1::3]):
        assert bytes(mhtml.parse(strided).bytes) == bytes(strided)


def test_text_that_is_not_utf8_comes_back_escaped():
    raw = (b"Content-Type: multipart/related; boundary=b\r\nSubject: caf\xe9\r\n\r\n"
           b"--b\r\nContent-Type: text/html\r\nContent-Location: http://e.example/caf\xe9\r\n"
           b"Content-Transfer-Encoding: b\xe9se64\r\n\r\n<a href=\"x\xe9.html\">x</a>\r\n--b--\r\n")
    doc = mhtml.parse(raw)
    top = doc.find("")
    assert top.header("Subject") == "caf\udce9"
    assert top.header(b"subject").encode("utf-8", "surrogateescape") == b"caf\xe9"
    page = doc.find("1")
    assert page.content_location.encode("utf-8", "surrogateescape") == b"http://e.example/caf\xe9"
    assert page.resolved_location is not None
    assert any(d.code for d in doc.diagnostics)  # the 8-bit encoding name is reported
    refs = doc.references()
    assert refs[0].url.encode("utf-8", "surrogateescape") == b"x\xe9.html"
    assert doc.check()  # no exception
    assert doc.resolve(b"http://e.example/caf\xe9").path == "1"
    assert doc.resolve(page.content_location).path == "1"
    with pytest.raises(ValueError):
        mhtml.url.cid_to_content_id(b"cid:%E9%")
    assert mhtml.url.cid_to_content_id(b"cid:%E9") == "<\udce9>"


def test_paths_are_regular_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(PAGE)  # a file named "-", not standard input
    assert len(mhtml.parse("-").parts) == 4
    with pytest.raises(OSError):
        mhtml.parse("/dev/null")
    with pytest.raises(IsADirectoryError):
        mhtml.parse(tmp_path)
    with pytest.raises(ValueError):
        mhtml.parse("a\0b")
    for bad in (-1, 0):
        with pytest.raises(ValueError):
            mhtml.parse(PAGE, max_parts=bad)
    for bad in ("3", True, 2.0):
        with pytest.raises(TypeError):
            mhtml.parse(PAGE, max_depth=bad)


def test_a_file_read_without_mapping_survives_its_change(tmp_path):
    f = tmp_path / "p.mhtml"
    f.write_bytes(PAGE)
    doc = mhtml.parse(f, mmap=False)
    f.write_bytes(b"")  # cut: a mapped document would fault reading it now
    assert doc.find("3").decode() == b"body{}"
    assert bytes(doc.bytes) == PAGE


def test_url_is_a_module_and_parts_compare():
    import mhtml.url
    from mhtml.url import resolve
    assert resolve is mhtml.url.resolve
    doc = mhtml.parse(PAGE)
    assert doc.root == doc.find("1") and doc.root != doc.find("2")
    assert len({doc.root, doc.find("1")}) == 1


REPAIR_SAMPLES = [p for p in CORPUS if b"\nDate:" in p.read_bytes()[:4096]][:10]


@pytest.mark.parametrize("path", REPAIR_SAMPLES, ids=[p.name for p in REPAIR_SAMPLES])
def test_repair_writes_what_the_cli_writes(path, tmp_path):
    # Archives with a Date: repair keeps it, so the output is deterministic.
    r = subprocess.run([CLI, "repair", str(path), "-o", str(tmp_path / "cli.mhtml"), "--json"],
                       capture_output=True)
    assert r.returncode in (0, 1), r.stderr
    got = mhtml.repair(path)
    assert got["output"] == (tmp_path / "cli.mhtml").read_bytes()
    want = json.loads(r.stdout)
    assert [c["what"] for c in got["changes"]] == [c["what"] for c in want["changes"]]
    assert mhtml.repair(got["output"])["output"] == got["output"]  # idempotent
    with pytest.raises(ValueError):
        mhtml.repair(path, target="firefox")


def test_pack_writes_the_page_the_cli_packs(tmp_path):
    site = tmp_path / "site"
    (site / "img").mkdir(parents=True)
    (site / "index.html").write_bytes(b"<link rel=stylesheet href=s.css><img src=img/a.png>")
    (site / "s.css").write_bytes(b"body{background:url(img/a.png)}")
    (site / "img" / "a.png").write_bytes(b"\x89PNG-data")
    got = mhtml.pack(site, base="https://e.example/")
    assert got["parts"] == 3
    subprocess.run([CLI, "pack", str(site), "--base", "https://e.example/", "-o",
                    str(tmp_path / "cli.mhtml")], check=True, capture_output=True)
    def leaves(doc):
        return {p.content_location: p.decode() for p in doc.parts if p.is_leaf}
    assert leaves(mhtml.parse(got["output"])) == leaves(mhtml.parse(tmp_path / "cli.mhtml"))
    doc = mhtml.parse(got["output"])
    assert doc.root.content_location == "https://e.example/index.html"
    assert doc.resolve("img/a.png").decode() == b"\x89PNG-data"
    assert not [d for d in doc.diagnostics if d.severity == "error"]
    cid = mhtml.parse(mhtml.pack(site, method="cid")["output"])
    assert all(p.content_id for p in cid.parts if p.is_leaf)
    with pytest.raises(OSError):
        mhtml.pack(tmp_path / "missing")
    with pytest.raises(ValueError):
        mhtml.pack(site, method="zip")
