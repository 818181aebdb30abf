"""Run each notebook twice in one commlab kernel through nbclient, as a
reader does: Run All, change one parameter in the parameters cell, Run All
again. Fails on any error output of either run.

usage: run_twice.py NOTEBOOK NAME GO_VALUE [NOTEBOOK NAME GO_VALUE ...]
"""
import os
import sys

import nbformat
from nbclient import NotebookClient

failures = []
args = sys.argv[1:]
for i in range(0, len(args), 3):
    path, name, value = args[i:i + 3]
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="commlab", timeout=600,
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
    params = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.get("metadata", {}).get("tags", [])]
    assert params, "%s: no cell tagged parameters" % path
    with client.setup_kernel():
        for run in (1, 2):
            if run == 2:
                params[0].source += "\n%s = %s // changed before the second run\n" % (name, value)
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                client.execute_cell(cell, index)
                for out in cell.get("outputs", []):
                    if out.get("output_type") == "error":
                        failures.append("%s run %d cell %d: %s: %s" % (path, run, index, out.get("ename"), out.get("evalue")))
    print("%s: two runs, second with %s = %s" % (os.path.basename(path), name, value))
if failures:
    print("\n".join(failures))
    sys.exit(1)
