"""commlab-papermill: Go parameters for papermill.

papermill has no parameter translator for Go. Installed, this package
registers one (commlab_papermill.translator.GoTranslator) for the kernel
"commlab" and the language "go" whenever papermill loads, so that

    papermill notebooks/01-collectives.ipynb out.ipynb -k commlab -p n 16

injects the same cell as `commlab run notebooks/01-collectives.ipynb -p n=16`.
The package imports nothing here: papermill loads it through the entry
point commlab_papermill.engine (see README.md).
"""
__version__ = "0.1.0"
