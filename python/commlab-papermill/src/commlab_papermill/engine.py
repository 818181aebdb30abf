"""The entry point papermill loads: an engine called "commlab" that runs
notebooks exactly as papermill's default nbclient engine does, and whose
import registers the Go translator.

papermill 2.7.0 reads plugins from the entry-point groups papermill.engine
(engines.py, PapermillEngines.register_entry_points) and papermill.io
(iorw.py), both while `import papermill` runs; translators.py has no group.
So the translator rides on an engine entry point.

papermill may load this module while it is itself half imported, and this
module may be what started papermill's import: so CommlabEngine is defined
before anything of papermill is imported, and it reaches papermill's
engine only when it runs.
"""


class CommlabEngine:
    """papermill's NBClientEngine under another name (see the module doc)."""

    @staticmethod
    def _nbclient():
        from papermill.engines import NBClientEngine

        return NBClientEngine

    @classmethod
    def execute_notebook(cls, *args, **kwargs):
        return cls._nbclient().execute_notebook(*args, **kwargs)

    @classmethod
    def nb_kernel_name(cls, *args, **kwargs):
        return cls._nbclient().nb_kernel_name(*args, **kwargs)

    @classmethod
    def nb_language(cls, *args, **kwargs):
        return cls._nbclient().nb_language(*args, **kwargs)


# Registers GoTranslator. When that module is what started papermill's
# import, this plain import returns it half done; it registers itself when
# it finishes.
import commlab_papermill.translator  # noqa: E402,F401
