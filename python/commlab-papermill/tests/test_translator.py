"""Unit tests of the Go translator. The expected texts of floats and strings
are what Go's strconv.FormatFloat(f, 'g', -1, 64) (plus ".0") and
strconv.Quote print (go1.26); TestPapermillLiteralsMatchGo in the commlab
module checks the two against each other on many more values.

Run: python -m unittest discover -s python/commlab-papermill/tests
"""
import os
import subprocess
import sys
import unittest

import nbformat
import papermill
from papermill.exceptions import PapermillException
from papermill.parameterize import parameterize_notebook
from papermill.translators import papermill_translators, translate_parameters

from commlab_papermill.translator import (
    GoParameterError,
    GoTranslator,
    go_float,
    go_quote,
    go_type,
    inspect_go,
    is_go_identifier,
)

FLOATS = [
    (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (-1.0, "-1.0"), (0.1, "0.1"), (1.5, "1.5"), (100.0, "100.0"),
    (123456.0, "123456.0"), (999999.0, "999999.0"), (1e6, "1e+06"), (1234567.0, "1.234567e+06"),
    (1e-4, "0.0001"), (1.5e-4, "0.00015"), (1e-5, "1e-05"), (0.00012345, "0.00012345"), (1e21, "1e+21"),
    (1e22, "1e+22"), (1e100, "1e+100"), (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (2.5e-7, "2.5e-07"), (25.0, "25.0"), (3.14159, "3.14159"), (100000.5, "100000.5"), (12345.678, "12345.678"),
    (0.001, "0.001"),
]

STRINGS = [
    ("plain", '"plain"'),
    ('a"b\\c', r'"a\"b\\c"'),
    ("tab\there\nnl", r'"tab\there\nnl"'),
    ("\x00\x07\x1f\x7f", r'"\x00\a\x1f\x7f"'),
    ("é中文", '"é中文"'),
    ("\u00a0\u00ad\u200b\u2028", r'"\u00a0\u00ad\u200b\u2028"'),
    ("😀", '"😀"'),
    ("\U000e0001", r'"\U000e0001"'),
    ("\ufeff", r'"\ufeff"'),
    ("\ud800", r'"\xed\xa0\x80"'),  # a lone surrogate: not UTF-8, Go would see these bytes
    ("", '""'),
]


class Literals(unittest.TestCase):
    def test_floats_as_go_formats_them(self):
        for f, want in FLOATS:
            with self.subTest(f=f):
                self.assertEqual(go_float(f), want)
                self.assertEqual(GoTranslator.translate(f), want)

    def test_floats_without_go_constants_are_refused(self):
        for f in (float("nan"), float("inf"), float("-inf")):
            with self.subTest(f=f):
                with self.assertRaisesRegex(GoParameterError, "no Go constant"):
                    go_float(f)

    def test_strings_as_strconv_quote(self):
        for s, want in STRINGS:
            with self.subTest(s=s):
                self.assertEqual(go_quote(s), want)

    def test_scalars(self):
        cases = [(16, "16"), (-3, "-3"), (2**70, str(2**70)), (True, "true"), (False, "false"), ("1GiB", '"1GiB"')]
        for val, want in cases:
            with self.subTest(val=val):
                self.assertEqual(GoTranslator.translate(val), want)

    def test_lists_are_typed_slices(self):
        cases = [
            ([1, 2, 3], "[]int{1, 2, 3}"),
            ([1.5, 2.0], "[]float64{1.5, 2.0}"),
            ([1, 2.5], "[]float64{1.0, 2.5}"),  # Go would convert the untyped 1 too; written so it reads as float64
            (["a", "b"], '[]string{"a", "b"}'),
            ([True, False], "[]bool{true, false}"),
            ([1, "a"], '[]any{1, "a"}'),
            ([True, 1], "[]any{true, 1}"),  # a bool is not a number
            ([1, None], "[]any{1, nil}"),
            ([], "[]any{}"),
            ([[1, 2], [3]], "[][]int{[]int{1, 2}, []int{3}}"),
            ([[1], ["a"]], '[]any{[]int{1}, []string{"a"}}'),
            ((1, 2), "[]int{1, 2}"),
            ([{"a": 1}], '[]map[string]any{map[string]any{"a": 1}}'),
        ]
        for val, want in cases:
            with self.subTest(val=val):
                self.assertEqual(GoTranslator.translate(val), want)

    def test_dicts_are_string_maps(self):
        self.assertEqual(
            GoTranslator.translate({"n": 8, "beta": 25.0, "name": "ring", "sizes": [1, 2], "none": None}),
            'map[string]any{"n": 8, "beta": 25.0, "name": "ring", "sizes": []int{1, 2}, "none": nil}',
        )
        self.assertEqual(GoTranslator.translate({}), "map[string]any{}")
        with self.assertRaisesRegex(GoParameterError, "string keys"):
            GoTranslator.translate({1: "a"})

    def test_go_types(self):
        self.assertEqual(go_type([[1.5]]), "[][]float64")
        self.assertEqual(go_type({"a": 1}), "map[string]any")
        self.assertIsNone(go_type(None))

    def test_identifiers(self):
        for name in ("n", "_x", "linkGBps", "é1", "x9"):
            self.assertTrue(is_go_identifier(name), name)
        for name in ("", "9x", "my-var", "func", "range", "a b", "a\u0301", 3):
            self.assertFalse(is_go_identifier(name), name)


class Codify(unittest.TestCase):
    def test_cell_as_commlab_run_writes_it(self):
        # notebook/runner/params.go: "// Parameters", then name = literal, names sorted, no newline at the end.
        got = GoTranslator.codify({"n": 16, "linkGBps": 50.0, "bigSize": "1GiB", "nvls": False})
        self.assertEqual(got, '// Parameters\nbigSize = "1GiB"\nlinkGBps = 50.0\nn = 16\nnvls = false')

    def test_none_parameter_is_refused_with_the_reason(self):
        with self.assertRaises(GoParameterError) as cm:
            GoTranslator.codify({"n": None})
        self.assertIn("parameter n is None", str(cm.exception))
        self.assertIn("leave the parameter out", str(cm.exception))

    def test_bad_value_names_the_parameter(self):
        with self.assertRaisesRegex(GoParameterError, "parameter x: nan has no Go constant"):
            GoTranslator.codify({"x": float("nan")})

    def test_bad_name(self):
        with self.assertRaisesRegex(GoParameterError, "'my-var' is not a Go identifier"):
            GoTranslator.codify({"my-var": 1})

    def test_errors_are_papermill_exceptions(self):
        self.assertTrue(issubclass(GoParameterError, PapermillException))


class Registry(unittest.TestCase):
    def test_registered_for_the_kernel_and_the_language(self):
        self.assertIs(papermill_translators.find_translator("commlab", "python"), GoTranslator)
        self.assertIs(papermill_translators.find_translator("some-go-kernel", "go"), GoTranslator)

    def test_translate_parameters(self):
        self.assertEqual(translate_parameters("commlab", "go", {"n": 16}), "// Parameters\nn = 16")

    def test_papermill_loads_it_through_its_entry_point(self):
        # A fresh interpreter that imports only papermill: the entry point
        # must register the translator; and importing our module first must
        # not break papermill's own import (a circular import).
        for code in (
            "import papermill.translators as t; print(t.papermill_translators.find_translator('commlab', 'go').__name__)",
            "import commlab_papermill.translator, papermill.translators as t; print(t.papermill_translators.find_translator('commlab', 'go').__name__)",
            "import commlab_papermill.engine, papermill.engines as e; print(e.papermill_engines.get_engine('commlab').__name__)",
        ):
            with self.subTest(code=code):
                out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertIn(out.stdout.strip(), ("GoTranslator", "CommlabEngine"))

    def test_parameterize_notebook_puts_the_cell_after_parameters(self):
        nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "commlab", "language": "go", "display_name": "Go"}, "papermill": {}})
        nb.cells = [
            nbformat.v4.new_markdown_cell("# t", metadata={"tags": []}),
            nbformat.v4.new_code_cell("n := 8 // ranks", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("n * 2", metadata={"tags": []}),
        ]
        out = parameterize_notebook(nbformat.from_dict(nb), {"n": 16}, engine_name=None)
        self.assertEqual(out.cells[2].source, "// Parameters\nn = 16")
        self.assertEqual(out.cells[2].metadata["tags"], ["injected-parameters"])


class Inspect(unittest.TestCase):
    def test_chapter_style_cell(self):
        src = (
            'n := 8                 // GPUs taking part\n'
            'bigSize := "1GiB"      // the large all_reduce // of the core question\n'
            'alphaUs := 5.0         // latency per step\n'
            'nvls := true\n'
            'url := "http://x//y"   // a URL keeps its slashes\n'
            'pasted := `line one\n'
            'line two`              // pasted output\n'
            'var ranks int64 = 4    // typed\n'
            'const name = "ring"\n'
            'var (\n'
            '\twait = 2 * time.Second\n'
            '\tmask = 0x0f\n'
            ')\n'
            '// a comment alone\n'
            'fmt.Println(n)\n'
        )
        got = [(n, t, d) for n, t, d, _ in inspect_go(src)]
        self.assertEqual(got, [
            ("n", "int", "8"),
            ("bigSize", "string", '"1GiB"'),
            ("alphaUs", "float64", "5.0"),
            ("nvls", "bool", "true"),
            ("url", "string", '"http://x//y"'),
            ("pasted", "string", "`line one\nline two`"),
            ("ranks", "int64", "4"),
            ("name", "string", '"ring"'),
            ("wait", "None", "2 * time.Second"),
            ("mask", "int", "0x0f"),
        ])
        helps = {n: h for n, _, _, h in inspect_go(src)}
        self.assertEqual(helps["bigSize"], "the large all_reduce // of the core question")
        self.assertEqual(helps["url"], "a URL keeps its slashes")
        self.assertEqual(helps["pasted"], "pasted output")

    def test_papermill_help_notebook(self):
        here = os.path.dirname(os.path.abspath(__file__))
        nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "commlab", "language": "go", "display_name": "Go"}})
        nb.cells = [nbformat.v4.new_code_cell("n := 8 // GPUs taking part", metadata={"tags": ["parameters"]})]
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "commlab-papermill-help-%d.ipynb" % os.getpid())
        nbformat.write(nb, path)
        try:
            out = subprocess.run([sys.executable, "-m", "papermill", "--help-notebook", path], capture_output=True, text=True, cwd=here)
        finally:
            os.remove(path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("n: int (default 8)", out.stdout)
        self.assertIn("GPUs taking part", out.stdout)


if __name__ == "__main__":
    print("papermill", papermill.__version__)
    unittest.main()
