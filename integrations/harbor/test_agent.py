"""The agent class against Harbor's installed-agent interface, as the
installed Harbor defines it: run by TestHarborAgentClass with Harbor's venv
(python -m unittest test_agent, from integrations/harbor)."""

import asyncio
import inspect
import json
import os
import tempfile
import unittest
from pathlib import Path

from harbor.agents.factory import AgentFactory
from harbor.agents.installed.base import BaseInstalledAgent
from harbor.models.agent.context import AgentContext

from swetouch_harbor.agent import NO_VERDICT_TEST, OUT, TASKS, SwetouchAgent


class FakeEnvironment:
    """What an installed agent calls on Harbor's environment, recorded:
    exec and upload_file/upload_dir (BaseEnvironment's signatures)."""

    default_user = None

    def __init__(self):
        self.calls = []

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None):
        self.calls.append(("exec", command, env, user))

        class R:
            return_code, stdout, stderr = 0, "swetouch version test\n", ""

        return R()

    async def upload_file(self, source_path, target_path):
        self.calls.append(("upload_file", str(source_path), target_path))

    async def upload_dir(self, source_dir, target_dir):
        files = sorted(str(p.relative_to(source_dir)) for p in Path(source_dir).rglob("*"))
        self.calls.append(("upload_dir", target_dir, files, source_dir))


def make(tmp, **kwargs):
    """The agent as Harbor's factory makes it from an import path."""
    logs = Path(tmp) / "trial" / "agent"
    logs.mkdir(parents=True)
    return AgentFactory.create_agent_from_import_path(
        SwetouchAgent.import_path(), logs_dir=logs, model_name="anthropic/claude-sonnet-4", **kwargs
    )


class AgentClassTest(unittest.TestCase):
    def test_is_a_complete_installed_agent(self):
        self.assertTrue(issubclass(SwetouchAgent, BaseInstalledAgent))
        self.assertFalse(inspect.isabstract(SwetouchAgent), inspect.getmembers(SwetouchAgent))
        self.assertEqual(SwetouchAgent.name(), "swetouch")
        self.assertEqual(SwetouchAgent.import_path(), "swetouch_harbor.agent:SwetouchAgent")

    def test_unknown_kwarg_refused(self):
        with tempfile.TemporaryDirectory() as tmp, self.assertRaisesRegex(ValueError, "Unknown option 'prest'"):
            make(tmp, prest="claude")

    def test_run_command_wraps_a_preset(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = make(tmp, preset="claude", model_url="http://10.0.0.1:8000", run_args="--step-limit 50")
            argv = a.run_command(TASKS / "t")
        self.assertEqual(argv[:8], [
            "/installed-agent/swetouch/bin/swetouch", "run", "--task", "/installed-agent/swetouch/tasks/t",
            "--in-place", "/testbed", "--out", str(OUT)])
        for pair in (["--agent", "claude"], ["--model-url", "http://10.0.0.1:8000"], ["--model", "claude-sonnet-4"],
                     ["--step-limit", "50"], ["--agent-name", "claude"]):
            self.assertIn(pair, [argv[i:i + 2] for i in range(len(argv))])
        self.assertNotIn("--", argv)

    def test_run_command_wraps_a_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = make(tmp, command="my-agent --fast 'two words'", agent_name="mine", workdir="/app")
            argv = a.run_command(TASKS / "t")
        self.assertEqual(argv[argv.index("--"):], ["--", "my-agent", "--fast", "two words"])
        self.assertEqual(argv[argv.index("--in-place") + 1], "/app")
        self.assertEqual(argv[argv.index("--agent-name") + 1], "mine")

    def test_preset_xor_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            for kw in ({}, {"preset": "claude", "command": "x"}):
                with self.assertRaises(ValueError):
                    make(tmp + "/" + str(len(kw)), **kw).run_command(TASKS / "t")

    def test_setup_uploads_the_binary(self):
        with tempfile.TemporaryDirectory() as tmp:
            exe = Path(tmp) / "swetouch"
            exe.write_text("")
            (Path(tmp) / "swetouch-shim").write_text("")
            a = make(tmp, preset="careful", swetouch_bin=str(exe), plans=tmp)
            env = FakeEnvironment()
            asyncio.run(a.setup(env))
        uploads = [c for c in env.calls if c[0] == "upload_file"]
        self.assertEqual([u[2] for u in uploads],
                         ["/installed-agent/swetouch/bin/swetouch", "/installed-agent/swetouch/bin/swetouch-shim"])
        self.assertIn(("upload_dir", "/installed-agent/swetouch/agents"), [c[:2] for c in env.calls])
        self.assertTrue(any("ln -sf" in c[1] and c[3] == "root" for c in env.calls if c[0] == "exec"))

    def test_run_uploads_the_task_without_its_solution(self):
        with tempfile.TemporaryDirectory() as tmp:
            task = Path(tmp) / "tasks" / "t1"
            for f in ("tests/test.sh", "solution/solve.sh", "environment/Dockerfile", "task.toml", "instruction.md"):
                (task / f).parent.mkdir(parents=True, exist_ok=True)
                (task / f).write_text("x")
            a = make(tmp, preset="careful")
            (a.logs_dir.parent / "config.json").write_text(json.dumps({"task": {"path": str(task)}}))
            env = FakeEnvironment()
            asyncio.run(a.run("fix it", env, AgentContext()))
        (_, target, files, _), = [c for c in env.calls if c[0] == "upload_dir"]
        self.assertEqual(target, "/installed-agent/swetouch/tasks/t1")
        self.assertEqual(files, ["instruction.md", "repo", "task.toml", "tests", "tests/test.sh"])
        run = [c for c in env.calls if c[0] == "exec" and " run " in c[1]][-1]
        self.assertEqual(run[3], "root")
        self.assertIn("--task /installed-agent/swetouch/tasks/t1", run[1])

    def test_without_the_task_the_verdict_is_harbors(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = make(tmp, preset="careful")
            got = a.swetouch_task("fix it", Path(tmp) / "out")
            self.assertEqual((got / "tests" / "test.sh").read_text(), NO_VERDICT_TEST)
            self.assertEqual((got / "instruction.md").read_text(), "fix it")
            self.assertTrue(os.access(got / "tests" / "test.sh", os.X_OK))

    def test_result_reaches_harbors_context(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = make(tmp, preset="careful")
            (a.logs_dir / "swetouch").mkdir()
            (a.logs_dir / "swetouch" / "result.json").write_text(
                json.dumps({"resolved": True, "steps": 3, "condition": "vanilla", "interventions_applied": 1}))
            ctx = AgentContext()
            a.populate_context_post_run(ctx)
        self.assertEqual(ctx.metadata["swetouch"]["resolved"], True)
        self.assertEqual(ctx.metadata["swetouch"]["steps"], 3)
        self.assertEqual(ctx.metadata["swetouch"]["interventions_applied"], 1)


if __name__ == "__main__":
    unittest.main()
