#!/usr/bin/env python3
"""Tests of scripts/conformance.py on small fake repositories built in a temporary folder:
the table it writes, and the two failures --check must catch (an ID cited without a row in
docs/requirements.tsv, and a docs/conformance.md that no longer matches the sources).

usage: conformance_test.py [-v]   (run by CTest as conformance.checker_selftest)

This file names requirement IDs on purpose; scripts/conformance.py does not scan it."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "scripts", "conformance.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
sys.dont_write_bytecode = True  # no scripts/__pycache__ in the source tree
import conformance  # noqa: E402

ROWS = """\
# a comment line
id\tdocument\tsection\tlevel\tbinds\tsummary
MHT-4.2.5\tMHTML draft-04\t§4.2\tMUST\tboth\tOne Content-Location per heading.
MHT-8.2.1\tMHTML draft-04\t§8.2 (a)\tMUST\treader\tUnfold without percent-decoding.
MHT-8.2.2\tMHTML draft-04\t§8.2 (b)\tMUST\treader\tRemove transfer encodings.
MHT-8.2.3\tMHTML draft-04\t§8.2 (c)\tMUST\treader\tResolve by chapter 5.
MHT-8.3.1\tMHTML draft-04\t§8.3\tMUST\treader\tcid: matches Content-ID only.
CID-2\tcid/mid draft\t§2\tMUST\tboth\tcid: and mid: syntax.
CID-9\tcid/mid draft\t§2\tMUST\treader\tcid: to Content-ID.
E-34\tseed errata\ttext/html draft §8\terratum\t-\tIds are opaque.
"""

FILES = {
    "src/archive/check.cpp": """\
        namespace mhtml {
        namespace {
        // MHT-4.2.5: at most one Content-Location per heading.
        int count_locations(int n) {
            return n;
        }
        }  // namespace

        struct checker {
            void run() {
                report("MHT-8.3.1", "cid_matched_content_location");
            }
        };
        }  // namespace mhtml
        """,
    "include/mhtml/uri/cid.hpp": """\
        /// The cid: URL (CID-2).
        ///
        /// Ids are opaque octets (E-34).

        /// CID-9: percent-decodes the id.
        std::string cid_to_content_id(std::string_view url);
        """,
    "tests/spec/cid_test.cpp": """\
        #include "mhtml/uri/cid.hpp"

        // Helpers for MHT-8.2.1 to MHT-8.2.3.
        int helper() { return 1; }

        TEST(CidMid, CID_9_PercentDecoded) {
            EXPECT_EQ(1, helper());
        }

        // E-34: a Content-ID without brackets.
        TEST(CidMid, BracketlessId) {
            auto file = load_vectors("v.json");
            EXPECT_TRUE(file.size() > 0);
        }

        TEST(Resolve, MHT_8_2_And_8_3_AllVectors) {
            EXPECT_TRUE(true);
        }
        """,
    "tests/data/spec/v.json": """\
        {
          "vectors": [
            {
              "id": "one",
              "section": "CID-2",
              "note": "percent-decoded (CID-9)"
            }
          ]
        }
        """,
    "tests/corpus/check_golden_test.cpp": """\
        TEST(CheckGolden, EveryCorpusFileMatchesItsGoldenFindings) {
            EXPECT_TRUE(true);
        }
        """,
    "tests/data/check/a.mht.golden": "error MHT-4.2.5 multiple_content_location 1 10\n",
    "tests/data/check/b.mht.golden": "error MHT-4.2.5 multiple_content_location 2 20\n",
    "tests/browser/views_test.py": """\
        import unittest


        class Views(unittest.TestCase):
            def test_inline(self):
                # MHT-4.2.5 in a rendered page
                self.assertTrue(True)
        """,
    "docs/check.md": "Findings name their row, e.g. MHT-4.2.5; section MHT-8.2 in general.\n",
}


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def run(root, *args):
    p = subprocess.run([sys.executable, SCRIPT, "--root", root, *args],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class FakeTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        write(self.root, "docs/requirements.tsv", ROWS)
        for rel, text in FILES.items():
            write(self.root, rel, textwrap.dedent(text))
        code, out = run(self.root)
        self.assertEqual(code, 0, out)
        with open(os.path.join(self.root, "docs/conformance.md"), encoding="utf-8") as f:
            self.table = f.read()

    def tearDown(self):
        self.tmp.cleanup()

    def row(self, ident):
        for line in self.table.split("\n"):
            if line.startswith(f"| {ident} |"):
                return line
        self.fail(f"no row for {ident}")

    def test_fresh_table_passes_the_check(self):
        code, out = run(self.root, "--check")
        self.assertEqual(code, 0, out)
        self.assertIn("0 problem(s)", out)

    def test_same_sources_give_the_same_bytes(self):
        first = self.table
        code, out = run(self.root)
        self.assertEqual(code, 0, out)
        with open(os.path.join(self.root, "docs/conformance.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), first)

    def test_implemented_in_names_file_and_function(self):
        self.assertIn("`src/archive/check.cpp` (`count_locations`)", self.row("MHT-4.2.5"))
        self.assertIn("`src/archive/check.cpp` (`checker::run`)", self.row("MHT-8.3.1"))
        # A doc comment directly above a declaration introduces it; one separated by a
        # blank line is about the file.
        self.assertIn("`include/mhtml/uri/cid.hpp` (`cid_to_content_id`)", self.row("CID-9"))
        self.assertIn("`include/mhtml/uri/cid.hpp` |", self.row("CID-2"))

    def test_tested_by_names_tests(self):
        cid9 = self.row("CID-9")
        self.assertIn("`CidMid.CID_9_PercentDecoded`", cid9)          # in the test's name
        self.assertIn("`CidMid.BracketlessId` (via v.json)", cid9)    # through the vectors
        self.assertIn("`CidMid.BracketlessId`", self.row("E-34"))     # comment above the test
        self.assertIn("`tests/browser/views_test.py::Views::test_inline`", self.row("MHT-4.2.5"))
        self.assertIn("`docs/check.md`", self.row("MHT-4.2.5"))
        self.assertIn("`CheckGolden.EveryCorpusFileMatchesItsGoldenFindings` "
                      "(via 2 files in tests/data/check)", self.row("MHT-4.2.5"))

    def test_golden_reader_must_exist(self):
        os.remove(os.path.join(self.root, "tests/corpus/check_golden_test.cpp"))
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("no such test was found", out)

    def test_ranges_and_sections(self):
        # "MHT-8.2.1 to MHT-8.2.3" above a helper names all three rows.
        for ident in ("MHT-8.2.1", "MHT-8.2.2", "MHT-8.2.3"):
            self.assertIn("`tests/spec/cid_test.cpp` (`helper`)", self.row(ident))
        sections = self.table[self.table.index("## Section citations"):]
        self.assertIn("| MHT-8.2 | 3 rows, MHT-8.2.1 to MHT-8.2.3 |", sections)
        self.assertIn("`Resolve.MHT_8_2_And_8_3_AllVectors`", sections)
        # In a vector's section field, CID-2 is section 2, not the row.
        self.assertIn("| CID-2 | 2 rows, CID-2 to CID-9 |", sections)
        self.assertNotIn("v.json", self.row("CID-2"))

    def test_uncited_row_is_listed_empty(self):
        write(self.root, "docs/requirements.tsv",
              ROWS + "MHT-12.5\tMHTML draft-04\t§12\timplied\tviewer\tScripts off.\n")
        run(self.root)
        with open(os.path.join(self.root, "docs/conformance.md"), encoding="utf-8") as f:
            self.table = f.read()
        self.assertTrue(self.row("MHT-12.5").endswith("| Scripts off. | - | - | - |"))

    def test_cited_id_without_a_row_fails(self):
        write(self.root, "src/uri/new.cpp", "// MHT-12.5: scripts are off.\nint f();\n")
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("src/uri/new.cpp:1: MHT-12.5: neither a row of docs/requirements.tsv", out)
        write(self.root, "tests/unit/x_test.cpp", "TEST(X, E_40_Something) {}\n")
        code, out = run(self.root, "--check")
        self.assertIn("tests/unit/x_test.cpp:1: E_40: no row E-40", out)

    def test_bad_range_fails(self):
        write(self.root, "src/a.cpp", "// MHT-8.2.3 to MHT-8.2.9\n")
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("the range ends at MHT-8.2.9, which has no row", out)

    def test_stale_table_fails(self):
        # A new citation of a known ID, table not regenerated.
        write(self.root, "src/uri/cid.cpp", "// CID-2: the syntax.\nint parse_cid();\n")
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("docs/conformance.md is stale", out)
        self.assertIn("+| CID-2 |", out)
        code, out = run(self.root)
        self.assertEqual(code, 0, out)
        code, out = run(self.root, "--check")
        self.assertEqual(code, 0, out)

    def test_hand_edited_table_fails(self):
        path = os.path.join(self.root, "docs/conformance.md")
        with open(path, "a", encoding="utf-8") as f:
            f.write("| MHT-9.9 | made up |\n")
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("-| MHT-9.9 | made up |", out)

    def test_missing_table_fails(self):
        os.remove(os.path.join(self.root, "docs/conformance.md"))
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("docs/conformance.md is missing", out)

    def test_malformed_data_file_fails(self):
        write(self.root, "docs/requirements.tsv",
              ROWS + "CID-9\tcid/mid draft\t§2\tMUST\treader\tAgain.\n"
                     "CID-10\tno such document\t§2\tMUST\twriter\tx\n"
                     "CID-11\tcid/mid draft\t§2\tMUST\n")
        code, out = run(self.root, "--check")
        self.assertEqual(code, 1, out)
        self.assertIn("CID-9 appears twice", out)
        self.assertIn("CID-10: unknown document 'no such document'", out)
        self.assertIn("4 tab-separated columns, expected 6", out)


class Tokens(unittest.TestCase):
    """How citations are read (the rule in docs/conformance.md)."""

    @classmethod
    def setUpClass(cls):
        rows = {}
        for rid in ["URL-3.1.2", "URL-3.1.3", "URL-3.1.4", "MHT-4.4.1.7", "MHT-4.4.1.8",
                    "MHT-4.4.1.9", "MHT-4.4.1.10", "MHT-4.4.1.11", "MHT-12.1", "MHT-12.5",
                    "REL-3.2.1", "REL-3.4.2", "THTML-A.2", "E-24", "E-25", "E-30"]:
            rows[rid] = conformance.Row(rid, "MHTML draft-04", "§1", "MUST", "both", "x")
        cls.model = conformance.Model(rows, sorted(rows, key=conformance.natural_key))

    def cited(self, text, code=True, section_field=False):
        out = []
        for token, kind, ids, error in conformance.tokens_in_line(self.model, text, code,
                                                                   section_field):
            out.append((kind, ids[0] if len(ids) == 1 else (ids[0], ids[-1], len(ids)))
                       if not error else ("error", token))
        return out

    def test_plain_ids(self):
        self.assertEqual(self.cited("see MHT-12.5 (and THTML-A.2's folder)."),
                         [("id", "MHT-12.5"), ("id", "THTML-A.2")])

    def test_not_ids(self):
        self.assertEqual(self.cited("1E-5, x-E-3, URL-word, UTF-8, ISO-8859-1, mhtml-12"), [])

    def test_test_names(self):
        self.assertEqual(self.cited("TEST(A, MHT_4_4_1_10_X)"), [("id", "MHT-4.4.1.10")])
        self.assertEqual(self.cited("TEST(A, REL_3_And_MHT_12_AllVectors)"),
                         [("section", ("REL-3.2.1", "REL-3.4.2", 2)),
                          ("section", ("MHT-12.1", "MHT-12.5", 2))])
        self.assertEqual(self.cited("MHT_4_4_1_10_X", code=False), [])

    def test_ranges(self):
        self.assertEqual(self.cited("MHT-4.4.1.7-9."), [("range", ("MHT-4.4.1.7", "MHT-4.4.1.9", 3))])
        self.assertEqual(self.cited("MHT-4.4.1.7 to 4.4.1.11"),
                         [("range", ("MHT-4.4.1.7", "MHT-4.4.1.11", 5))])
        self.assertEqual(self.cited("URL-3.1.2 to URL-3.1.4"),
                         [("range", ("URL-3.1.2", "URL-3.1.4", 3))])
        self.assertEqual(self.cited("E-24 to E-30"), [("range", ("E-24", "E-30", 3))])
        # Not a range: a count after "to".
        self.assertEqual(self.cited("MHT-12.1 to 100,000 parts"), [("id", "MHT-12.1")])
        self.assertEqual(self.cited("MHT-4.4.1.9 to MHT-4.4.1.7"), [("error", "MHT-4.4.1.9 to MHT-4.4.1.7")])

    def test_sections(self):
        self.assertEqual(self.cited("MHT-12.x, REL-3.*, MHT-4.4 and MHT-4.4.1 (a)"),
                         [("section", ("MHT-12.1", "MHT-12.5", 2)),
                          ("section", ("REL-3.2.1", "REL-3.4.2", 2)),
                          ("section", ("MHT-4.4.1.7", "MHT-4.4.1.11", 5)),
                          ("section", ("MHT-4.4.1.7", "MHT-4.4.1.11", 5))])

    def test_unknown(self):
        self.assertEqual(self.cited("MHT-13.1, E-40, REL-3.x.y, URL-3.1.9"),
                         [("error", "MHT-13.1"), ("error", "E-40"),
                          ("section", ("REL-3.2.1", "REL-3.4.2", 2)), ("error", "URL-3.1.9")])


if __name__ == "__main__":
    unittest.main()
