# JupyterHub for trying a commlab team session on one's own machine, as
# `make hub-local` runs it: everything in a temporary folder
# ($COMMLAB_HUB_DIR), JupyterHub's dummy login (any name, any password)
# and its SimpleLocalProcessSpawner (each user's server and kernel run as
# you, in a folder of their own under $COMMLAB_HUB_DIR holding a copy of
# the notebooks), on http://127.0.0.1:8000 only. The real session
# (jupyterhub_config.py) uses the machine's accounts instead.
import os
import shutil

c = get_config()  # noqa: F821

hub_dir = os.environ["COMMLAB_HUB_DIR"]
notebooks = os.environ["COMMLAB_NOTEBOOKS"]
venv_bin = os.environ["COMMLAB_VENV_BIN"]

c.JupyterHub.bind_url = "http://127.0.0.1:8000"
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(hub_dir, "{username}")
c.ConfigurableHTTPProxy.command = [os.environ["COMMLAB_PROXY"]]
c.ConfigurableHTTPProxy.pid_file = os.path.join(hub_dir, "jupyterhub-proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(hub_dir, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(hub_dir, "jupyterhub_cookie_secret")
c.Spawner.cmd = [os.path.join(venv_bin, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
# A first JupyterLab start on a busy 2-core machine can take a minute.
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
if os.geteuid() == 0:
    # The servers run as whoever runs the hub; Jupyter refuses root unless told.
    c.Spawner.args = ["--allow-root"]


def copy_notebooks(spawner):
    """Give each user their own copy of the notebooks, once."""
    home = os.path.join(hub_dir, spawner.user.name)
    os.makedirs(home, exist_ok=True)
    for name in sorted(os.listdir(notebooks)):
        if name.endswith(".ipynb") and not os.path.exists(os.path.join(home, name)):
            shutil.copy(os.path.join(notebooks, name), home)


c.Spawner.pre_spawn_hook = copy_notebooks
