"""jupytext's own reader and writer for notebook/literate's compatibility tests.

stdin: {"read": [markdown text, ...], "write": [notebook JSON, ...]}
stdout: {"read": [{"metadata": ..., "cells": [...]}, ...], "write": [markdown text, ...],
         "warnings": [[warning text, ...] per written notebook], "version": jupytext's}
A reader error becomes {"error": text} in its place.
"""
import json
import sys
import warnings

import jupytext
import nbformat


def cells(nb):
    return {
        "metadata": dict(nb.metadata),
        "cells": [{"cell_type": c.cell_type, "source": c.source, "metadata": dict(c.metadata)} for c in nb.cells],
    }


def main():
    req = json.load(sys.stdin)
    out = {"read": [], "write": [], "warnings": [], "version": jupytext.__version__}
    for text in req.get("read", []):
        try:
            out["read"].append(cells(jupytext.reads(text, fmt="md")))
        except Exception as e:  # noqa: BLE001 - the test shows it
            out["read"].append({"error": "%s: %s" % (type(e).__name__, e)})
    for doc in req.get("write", []):
        nb = nbformat.reads(json.dumps(doc), as_version=4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out["write"].append(jupytext.writes(nb, fmt="md"))
        out["warnings"].append([str(w.message) for w in caught])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
