# JupyterHub for a commlab team session, as the README's "Front ends" sets
# it up: the hub's environment in /opt/commlab-hub (ci/requirements.txt),
# its proxy from npm there, commlab in /usr/local/bin registered with
# `commlab install --sys-prefix`. Run as root:
#   /opt/commlab-hub/bin/jupyterhub -f ci/jupyterhub_config.py
# The users are the machine's accounts (JupyterHub's default PAM login and
# local process spawner): each user's server and kernel run as that user.
c = get_config()  # noqa: F821

c.JupyterHub.bind_url = "http://:8000"
# Who may log in: the team's accounts.
c.Authenticator.allowed_users = {"alice", "bob"}
# The trainer may stop anyone's server from the hub's admin page.
c.Authenticator.admin_users = {"root"}

c.ConfigurableHTTPProxy.command = ["/opt/commlab-hub/node_modules/.bin/configurable-http-proxy"]
c.ConfigurableHTTPProxy.pid_file = "/opt/commlab-hub/jupyterhub-proxy.pid"
c.JupyterHub.db_url = "sqlite:////opt/commlab-hub/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "/opt/commlab-hub/jupyterhub_cookie_secret"

# Each user's server: the hub environment's JupyterLab, started in their home.
c.Spawner.cmd = ["/opt/commlab-hub/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
