"""swetouch as a Harbor installed agent.

Harbor builds the task's container and runs its verifier; this class puts
swetouch between the two: its install uploads the static ``swetouch``
binary (and, if named, the agent's own install and a scripted agent's
plans), and its run wraps any ``swetouch run`` preset or agent command as

    swetouch run --task T --in-place /testbed --out /logs/agent/swetouch ...

so the shim, the hub and the user's interventions work on the container's
own checkout, exactly as in a local run, and the run folder comes back with
Harbor's trial (``TRIAL/agent/swetouch``), beside Harbor's reward
(``TRIAL/verifier/reward.txt``), where ``swetouch score`` reads both.

The task swetouch verifies with is the Harbor task's own (its instruction,
task.toml and tests/, never solution/), found through the trial's
config.json; it is uploaded under /installed-agent, and swetouch's
sandbox hides it from the agent. Where the task's folder cannot be found
(a task fetched by name) or ``verify`` is off, swetouch's task has a test
that gives no verdict, and Harbor's reward is the only one.

Load it with ``harbor run --agent swetouch_harbor.agent:SwetouchAgent``
(``--agent-import-path`` in older Harbor), with ``integrations/harbor`` on
PYTHONPATH. Set ``--max-retries 0``: a retried trial counts twice.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.agents.options import InstalledAgentOptions
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

# Where everything of swetouch's goes in the container, beside Harbor's
# own /installed-agent: outside the directories swetouch's sandbox shows
# the agent (/usr, /bin, /lib, /etc, /opt, /sys and the workspace). The
# task's folder, tests and all, is hidden from the agent wherever it lies
# (the sandbox hides the task's folder, as on the host); the plans and
# the agent's install are shown by swetouch as they are needed.
HOME = PurePosixPath("/installed-agent/swetouch")
BIN = HOME / "bin"
TASKS = HOME / "tasks"  # a scripted agent's plans are found beside tasks/
PLANS = HOME / "agents"
AGENT = HOME / "agent"  # the agent's own install (Node and its CLI, ...)
OUT = PurePosixPath("/logs/agent/swetouch")

# A task's test when the verdict is Harbor's alone: exit 127 is "a
# program the tests need is not here", which swetouch records as no
# verdict (resolved null), never as a failure.
NO_VERDICT_TEST = """#!/bin/sh
echo "the verdict is Harbor's: swetouch was not given the task's tests" >&2
exit 127
"""


class SwetouchOptions(InstalledAgentOptions):
    """The kwargs Harbor passes with --ak KEY=VALUE."""

    swetouch_bin: str | None = Field(
        default=None,
        description="The static swetouch binary on the host (default: $SWETOUCH_BIN, else swetouch on PATH); "
        "swetouch-shim beside it is uploaded too.",
    )
    preset: str | None = Field(
        default=None,
        description="A swetouch agent preset (swetouch run --agent): claude, codex, mini-swe-agent, careful, ...",
    )
    command: str | None = Field(
        default=None,
        description="The agent's own command line (shell words), run after -- instead of a preset.",
    )
    agent_name: str | None = Field(default=None, description="result.json's agent name, which score groups by.")
    model_url: str | None = Field(default=None, description="The model endpoint the agent talks to (--model-url).")
    workdir: str = Field(default="/testbed", description="The container's checkout the agent works on in place.")
    agent_install: str | None = Field(
        default=None,
        description="A host folder holding the agent's own install, uploaded to "
        f"{AGENT}; its bin/ goes first on PATH and the sandbox shows it (--visible).",
    )
    plans: str | None = Field(default=None, description="A host folder of scripted agents' plans (examples/agents).")
    records: str | None = Field(default=None, description="A dataset-record-v1 file binding Counter-Edits (--records).")
    condition: str | None = Field(default=None, description="vanilla, counter-edit, ... (--condition).")
    run_args: str | None = Field(default=None, description="More swetouch run flags (shell words).")
    verify: bool = Field(default=True, description="Give swetouch the task's tests, so it gives its own verdict too.")


class SwetouchAgent(BaseInstalledAgent):
    """Runs any agent under swetouch, in place, in Harbor's container."""

    options_model = SwetouchOptions

    @staticmethod
    def name() -> str:
        return "swetouch"

    def version(self) -> str | None:
        return self._version

    def get_version_command(self) -> str | None:
        return f"{BIN / 'swetouch'} --version"

    def parse_version(self, stdout: str) -> str:
        # "swetouch version X"
        return stdout.strip().rsplit(" ", 1)[-1]

    @property
    def opts(self) -> SwetouchOptions:
        assert isinstance(self.options, SwetouchOptions)
        return self.options

    def swetouch_binary(self) -> Path:
        """The host's swetouch, as the options, the environment or PATH name it."""
        named = self.opts.swetouch_bin or os.environ.get("SWETOUCH_BIN") or shutil.which("swetouch")
        if not named:
            raise RuntimeError("swetouch agent: no swetouch binary: give --ak swetouch_bin=PATH or set SWETOUCH_BIN")
        p = Path(named)
        if not p.is_file():
            raise RuntimeError(f"swetouch agent: swetouch_bin {p}: not a file")
        return p

    async def install(self, environment: BaseEnvironment) -> None:
        exe = self.swetouch_binary()
        await self.exec_as_root(environment, f"mkdir -p {BIN} {TASKS} {PLANS}")
        await environment.upload_file(exe, str(BIN / "swetouch"))
        shim = exe.with_name("swetouch-shim")
        names = ["swetouch"]
        if shim.is_file():
            await environment.upload_file(shim, str(BIN / "swetouch-shim"))
            names.append("swetouch-shim")
        paths = " ".join(str(BIN / n) for n in names)
        # swetouch on PATH too: a SWE-bench task's test.sh grades its log
        # with `swetouch grade` when Harbor's verifier runs it
        await self.exec_as_root(
            environment,
            f"chmod 0755 {paths} && ln -sf {BIN / 'swetouch'} /usr/local/bin/swetouch && {BIN / 'swetouch'} --version",
        )
        if self.opts.agent_install:
            await environment.upload_dir(self.opts.agent_install, str(AGENT))

    async def configure(self, environment: BaseEnvironment) -> None:
        if self.opts.plans:
            await environment.upload_dir(self.opts.plans, str(PLANS))
        if self.opts.records:
            await environment.upload_file(self.opts.records, str(HOME / "records.jsonl"))

    def harbor_task_dir(self) -> Path | None:
        """The Harbor task's folder on the host, from the trial's config.json
        (Harbor writes it before the agent starts; the agent is not told)."""
        cfg = self.logs_dir.parent / "config.json"
        try:
            path = json.loads(cfg.read_text())["task"]["path"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not path:
            return None
        p = Path(path)
        return p if (p / "tests").is_dir() else None

    def swetouch_task(self, instruction: str, into: Path) -> Path:
        """Writes swetouch's copy of the task under into: Harbor's
        instruction, and the task's task.toml and tests/ when verifying;
        never solution/ or environment/. Its repo/ is empty: --in-place
        works on the container's checkout instead."""
        src = self.harbor_task_dir() if self.opts.verify else None
        name = src.name if src else "harbor-task"
        dst = into / name
        (dst / "repo").mkdir(parents=True)
        (dst / "instruction.md").write_text(instruction)
        if src is not None:
            if (src / "task.toml").is_file():
                shutil.copy2(src / "task.toml", dst / "task.toml")
            shutil.copytree(src / "tests", dst / "tests")
        else:
            (dst / "tests").mkdir()
            test = dst / "tests" / "test.sh"
            test.write_text(NO_VERDICT_TEST)
            test.chmod(0o755)
        return dst

    def run_command(self, task: PurePosixPath) -> list[str]:
        """swetouch run's command line for the trial."""
        o = self.opts
        if bool(o.preset) == bool(o.command):
            raise ValueError("swetouch agent: give exactly one of --ak preset=NAME or --ak command='...'")
        argv = [str(BIN / "swetouch"), "run", "--task", str(task), "--in-place", o.workdir, "--out", str(OUT)]
        name = o.agent_name or o.preset
        if name:
            argv += ["--agent-name", name]
        if o.records:
            argv += ["--records", str(HOME / "records.jsonl")]
        if o.condition:
            argv += ["--condition", o.condition]
        if o.agent_install:
            argv += ["--visible", str(AGENT)]
        if o.preset:
            argv += ["--agent", o.preset]
            if o.model_url:
                argv += ["--model-url", o.model_url]
            if self.model_name:
                # Harbor's provider/model: the endpoint is named apart
                argv += ["--model", self.model_name.split("/", 1)[-1]]
        if o.run_args:
            argv += shlex.split(o.run_args)
        if o.command:
            argv += ["--", *shlex.split(o.command)]
        return argv

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        instruction = self.render_instruction(instruction)
        with tempfile.TemporaryDirectory(prefix="swetouch-harbor-") as tmp:
            local = self.swetouch_task(instruction, Path(tmp))
            remote = TASKS / local.name
            await self.exec_as_root(environment, f"rm -rf {shlex.quote(str(remote))} {OUT}")
            await environment.upload_dir(local, str(remote))
        env: dict[str, str] = {}
        path = f"{BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        if self.opts.agent_install:
            path = f"{AGENT / 'bin'}:{path}"
        env["PATH"] = path
        # swetouch runs as root outside its sandbox (it makes the agent's
        # namespaces and gives the agent its trial's own uid); its exit is
        # 0 whatever the verdict, else a setup fault Harbor should record
        await self.exec_as_root(
            environment,
            " ".join(shlex.quote(a) for a in self.run_command(remote)) + f" 2>&1 | tee {OUT}.log",
            env=env,
        )

    def populate_context_post_run(self, context: AgentContext) -> None:
        """swetouch's verdict and counts in Harbor's trial result."""
        try:
            res = json.loads((self.logs_dir / "swetouch" / "result.json").read_text())
        except (OSError, ValueError):
            return
        keep: dict[str, Any] = {k: res.get(k) for k in ("resolved", "reason", "condition", "steps", "interventions_applied", "messages_delivered")}
        context.metadata = {**(context.metadata or {}), "swetouch": keep}
