"""Execute smoke.ipynb with nbclient and the commlab kernel; check outputs."""
import sys

import nbclient
import nbformat
from nbclient import NotebookClient

nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="commlab", timeout=60).execute()
outs = [c.get("outputs", []) for c in nb.cells if c.cell_type == "code"]
assert outs[0][0]["output_type"] == "stream" and outs[0][0]["text"] == "ring\n", outs[0]
assert outs[1][0]["data"]["text/plain"] == "14", outs[1]
assert outs[2][0]["output_type"] == "display_data" and "text/html" in outs[2][0]["data"], outs[2]
assert outs[3][0]["output_type"] == "execute_result" and outs[3][0]["data"]["text/plain"] == "[0 1 4 9]", outs[3]
nbformat.validate(nb)
print("nbclient %s: %d code cells executed, outputs as expected" % (nbclient.__version__, len(outs)))
