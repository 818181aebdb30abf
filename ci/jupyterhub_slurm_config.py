# JupyterHub for a commlab team on a GPU cluster: each learner's server
# (and so their commlab kernel) runs as a Slurm job on a GPU node, started
# by batchspawner's SlurmSpawner, as the learner's own account. The hub's
# environment is the README's /opt/commlab-hub (ci/requirements.txt pins
# batchspawner), on a file system the nodes see at the same path, with
# commlab in /usr/local/bin registered by `commlab install --sys-prefix`.
# Run as root on a machine that can submit jobs (sbatch, squeue, scancel):
#   /opt/commlab-hub/bin/jupyterhub -f ci/jupyterhub_slurm_config.py
# Set the three lines marked CLUSTER for yours; ci/slurm_test.go runs the
# same spawner on a one-machine Slurm (ci/slurm-local.sh).
import batchspawner  # noqa: F401  (adds the hub's /api/batchspawner, where a job tells its port)

c = get_config()  # noqa: F821

c.JupyterHub.bind_url = "http://:8000"
# The nodes reach the hub's API here: the hub machine's address on the
# cluster network (not loopback).
c.JupyterHub.hub_ip = "0.0.0.0"
c.Authenticator.allowed_users = {"alice", "bob"}
c.Authenticator.admin_users = {"root"}
c.ConfigurableHTTPProxy.command = ["/opt/commlab-hub/node_modules/.bin/configurable-http-proxy"]
c.ConfigurableHTTPProxy.pid_file = "/opt/commlab-hub/jupyterhub-proxy.pid"
c.JupyterHub.db_url = "sqlite:////opt/commlab-hub/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "/opt/commlab-hub/jupyterhub_cookie_secret"

c.JupyterHub.spawner_class = "batchspawner.SlurmSpawner"
c.SlurmSpawner.req_partition = "gpu"  # CLUSTER: the partition of the GPU nodes
c.SlurmSpawner.req_gres = "gpu:2"  # CLUSTER: GPUs per learner (chapter 1 measures with 2)
c.SlurmSpawner.req_runtime = "04:00:00"  # CLUSTER: the session's time limit; the job (and server) ends then
c.SlurmSpawner.req_nprocs = "8"
c.SlurmSpawner.req_memory = "32G"
# The chapters in each learner's home, once: the job copies them before the
# server starts (or run `nbgrader fetch_assignment` there, see the README).
c.SlurmSpawner.req_prologue = 'cp -n /opt/commlab-hub/notebooks/*.ipynb "$HOME"/'
c.SlurmSpawner.batchspawner_singleuser_cmd = "/opt/commlab-hub/bin/batchspawner-singleuser"
# The server listens on the node's address for the hub's proxy.
c.Spawner.ip = "0.0.0.0"
c.Spawner.cmd = ["/opt/commlab-hub/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
# A job may wait in the queue: give it time to start.
c.Spawner.start_timeout = 600
c.Spawner.http_timeout = 300
