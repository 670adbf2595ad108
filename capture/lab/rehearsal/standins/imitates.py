"""What each stand-in behaviour imitates: the line of Ray's or Docker's source or docs it copies.

Lab tooling for the reader scenarios (tests/scenarios/). A stand-in calls `imitated(key)` where it
does a behaviour; the call records the key in $FAKE_IMITATED (one per line), and a scenario fails
on a recorded key that IMITATES does not cite (tests/scenarios/conftest.py); a unit test holds
every key a stand-in names to an entry here, and every entry to a source.
Ray's source is cited at the commits the project's search index stores (ray-project/ray).
"""
from __future__ import annotations

import os

RAY_CLI = "ray python/ray/dashboard/modules/job/cli.py@0718d5b0"
RAY_JOBS = "ray python/ray/dashboard/modules/job/job_manager.py@695c30de"
DOCKER = "https://docs.docker.com/reference/cli/docker/container/"

IMITATES: dict[str, str] = {
    # ---- Ray -------------------------------------------------------------------------------------
    "ray.start.already-running": "ray python/ray/scripts/scripts.py (ray start --head: ConnectionError "
                                 "'Ray is trying to start at ..., but is already running at ...')",
    "ray.start.inherits-environment": "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html "
                                      "(RAY_memory_* are set on the `ray start` command; the raylet reads them when "
                                      "it starts)",
    "ray.stop.ends-jobs": "ray doc/source/cluster/job-submission.rst (Jobs are bound to the lifetime of a Ray "
                          "cluster: when it goes down, its jobs end)",
    "ray.job.no-cluster": f"{RAY_CLI} _get_sdk_client (no dashboard at the address: the CLI cannot connect)",
    "ray.job.submit.duplicate-id": f"{RAY_JOBS} JobManager.submit_job (put_info(overwrite=False); ValueError "
                                   "'Job with submission_id ... already exists. Please use a different submission_id.')",
    "ray.job.env-is-cluster-env-plus-runtime-env": "https://docs.ray.io/en/latest/ray-core/handling-dependencies.html "
                                                   "(env_vars: variables already set on the cluster stay visible to "
                                                   "the workers; env_vars override them)",
    "ray.job.submit.streams-logs": f"{RAY_CLI} submit ('Job ... submitted successfully', then 'Tailing logs until "
                                   "the job exits (disable with --no-wait):' and _tail_logs)",
    "ray.job.verdict": f"{RAY_CLI} _log_job_status (big success/error message between rules as long as the line; "
                       "'was stopped'; 'Status for job ...')",
    "ray.job.missing": "ray python/ray/dashboard/modules/job/job_head.py (stop_job, delete_job, get_job_info: "
                       "HTTP 404 'Job ... does not exist' when no job has the id)",
    "ray.job.stop.waits": f"{RAY_CLI} stop ('Attempting to stop job', 'Waiting for job ... to exit', then "
                          "_log_job_status once the state is terminal)",
    "ray.job.delete.refuses-running": f"{RAY_JOBS} JobManager.delete_job (RuntimeError 'Attempted to delete job "
                                      "..., but it is in a non-terminal state ...', also for a missing job)",
    "ray.job.delete": f"{RAY_CLI} delete (\"Job '...' deleted successfully\"; logs on disk stay)",
    "ray.job.logs": f"{RAY_CLI} logs (client.get_job_logs printed once)",
    # ---- Docker ----------------------------------------------------------------------------------
    "docker.pull.status": "https://docs.docker.com/reference/cli/docker/image/pull/ (the pull ends with "
                          "'Status: Downloaded newer image for ...' or 'Status: Image is up to date for ...')",
    "docker.run.rm-command": f"{DOCKER}run/ (--rm: remove the container when it exits; the command's output "
                             "goes to the terminal)",
    "docker.run.detached": f"{DOCKER}run/ (-d, --detach: run in the background and print the container ID)",
    "docker.run.name-conflict": f"{DOCKER}run/ (--name: a name in use is refused, 'Conflict. The container name "
                                "\"/...\" is already in use')",
    "docker.run.bind-mount": f"{DOCKER}run/ (-v host:container: the host directory is the container path)",
    "docker.container.env": f"{DOCKER}run/ (-e, --env: set in the container's configuration, seen by its "
                            "processes, exec'd ones included, and kept across restarts)",
    "docker.exec.needs-running": f"{DOCKER}exec/ (runs a new command in a running container; only while its "
                                 "primary process runs, and not restarted with the container)",
    "docker.stop.ends-processes": f"{DOCKER}stop/ (SIGTERM to the main process, SIGKILL after the grace period: "
                                  "every process in the container ends)",
    "docker.restart.keeps-files": f"{DOCKER}restart/ (restart one or more containers: the same container, its "
                                  "files and configuration, new processes)",
    "docker.ps.format": f"{DOCKER}ls/ (--filter name=..., --format with {{{{.Names}}}} and {{{{.Status}}}}: "
                        "'Up ...' while running)",
    # ---- Hugging Face ----------------------------------------------------------------------------
    "hf.download.local-dir": "https://huggingface.co/docs/huggingface_hub/guides/cli (hf download REPO "
                             "--local-dir DIR writes the repository's files into DIR)",
}


def imitated(key: str) -> None:
    """Record that a stand-in did the behaviour `key` (the scenario checks it is cited)."""
    path = os.environ.get("FAKE_IMITATED")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(key + "\n")
