"""Submitting a node's job straight to the schedd, as DAGMan's direct submission does:
condorx's own submit code builds the job from the node's description and DAGMan's
statements (`node_job`), in the node's directory, and the schedd client sends it; no
condor_submit process per node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from condorx import record
from condorx.client.schedd import ScheddClient
from condorx.dagman import node_job
from condorx.language.config import Config
from condorx.language.dag.errors import DagError
from condorx.language.dag.model import Dag, Node
from condorx.language.dag.parse import parse as parse_dag
from condorx.language.dag.submit_file import Options as SubmitDagOptions
from condorx.language.dag.submit_file import text as submit_file_text
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse

# Cluster ids reserved at a time: a DAG's node submissions come in bursts.
_BLOCK = 64


class NodeSubmitError(Exception):
    """A node's job that cannot be built (its description is wrong or missing)."""


class Submitter:
    def __init__(self, client: ScheddClient, cfg: Config, dag: Dag, ctx: node_job.Context) -> None:
        self.client = client
        self.cfg = cfg
        self.dag = dag
        self.ctx = ctx
        self._facts = Facts.from_config(cfg)
        self._one_proc_only = cfg.get_bool("DAGMAN_PROHIBIT_MULTI_JOBS", False)
        self._ids: list[int] = []  # cluster ids reserved and not yet used
        self._refill = trio.Lock()

    def forget_reserved(self) -> None:
        """Reserve anew next time (a restarted schedd forgets what it reserved)."""
        self._ids.clear()

    async def _cluster_id(self) -> int:
        """The next cluster id: reserved in blocks (one schedd commit for many nodes)."""
        async with self._refill:  # one block at a time, however many submit at once
            if not self._ids:
                first = await self.client.reserve(_BLOCK)
                self._ids = list(range(first + _BLOCK - 1, first - 1, -1))
            return self._ids.pop()

    async def submit(self, node: Node, retry: int, status: int, failed: int) -> tuple[int, int]:
        """Submit the node's job; (its cluster, how many procs)."""
        cluster = await self._cluster_id()
        ad, procs, factory = self._build(node, retry, status, failed, cluster)
        made = {"limit": len(procs)} if factory else None
        cluster = await self.client.submit(ad, procs, cluster, None, made)
        return cluster, len(procs)

    def _build(
        self, node: Node, retry: int, status: int, failed: int, cluster: int
    ) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
        """(cluster ad, procs, whether a job factory) of the node's job."""
        cwd = node_job.directory(node)
        try:
            if node.kind == "SUBDAG":
                text, name = self._subdag(node, cwd)
            else:
                text, name = node_job.description(self.dag, node)
        except OSError as e:
            raise NodeSubmitError(f"cannot read submit file {node.submit}: {e.strerror}") from None
        top, after = node_job.statements(self.dag, node, self.ctx, retry, status, failed)
        facts = record.replace(self._facts, cwd=str(cwd))
        try:
            desc = parse(text, str(Path(name)), after, name, top)
            jobs = build(desc, cluster, facts, self.cfg, warn=False)
        except SubmitError as e:
            raise NodeSubmitError(str(e)) from None
        if not jobs.procs:
            raise NodeSubmitError(f"submit file {name} queues no jobs")
        if len(jobs.procs) > 1 and self._one_proc_only:
            raise NodeSubmitError(
                "Submit generated multiple job procs; disallowed by DAGMAN_PROHIBIT_MULTI_JOBS"
                " setting"
            )
        return jobs.cluster, jobs.procs, jobs.is_factory

    def _subdag(self, node: Node, cwd: Path) -> tuple[str, str]:
        """A SUBDAG EXTERNAL node's job is a DAGMan job of its own: its `.condor.sub` is
        written now (condor_submit_dag -no_submit's file, as HTCondor's DAGMan has it
        written when the node is ready), checking the sub-DAG first."""
        dag_file = cwd / node.submit
        try:
            parse_dag(dag_file)
        except DagError as e:
            raise NodeSubmitError(f"SUBDAG {node.name}: {e}") from None
        opts = SubmitDagOptions(
            dags=[node.submit],
            suppress_notification=self.ctx.suppress_notification,
            priority=self.ctx.priority,
        )
        name = node.submit + ".condor.sub"  # its paths are relative to the node's directory
        text = submit_file_text(opts)
        (cwd / name).write_text(text)
        return text, name
