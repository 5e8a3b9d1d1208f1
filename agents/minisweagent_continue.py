"""swetouch's next turn of a mini-swe-agent conversation.

mini-swe-agent has no session to resume: each `mini` starts a new
conversation. When its agent wants to finish and its user types a new
task, mini's own interactive agent goes on with the same messages and one
more user message, "The user added a new task: ...". A swetouch turn ends
when the agent's process exits, so the next turn starts this script in
place of `mini`: it runs mini's own command line (the same flags, the
user's message as --task) with an agent that, where mini would start its
messages afresh, takes the previous turn's trajectory instead and adds the
user's message as mini itself would have. Nothing else of the agent
differs: its model, its environment and its trajectory file are mini's.

Usage: swetouch_mini_continue.py HISTORY MINI-ARGS... (its #! line is mini's own)
"""

import json
import sys
from pathlib import Path

from minisweagent.agents.interactive import InteractiveAgent


class ContinuingAgent(InteractiveAgent):
    """mini's interactive agent, its messages seeded from a trajectory."""

    history = ""

    def run(self, task: str = "", **kwargs) -> dict:
        data = json.loads(Path(self.history).read_text())
        stats = data.get("info", {}).get("model_stats", {})
        # its calls and cost go on from the previous turn's
        self.n_calls = int(stats.get("api_calls", 0))
        self.cost = float(stats.get("instance_cost", 0.0))
        self._prior = [m for m in data.get("messages", []) if m.get("role") != "exit"]
        return super().run(task, **kwargs)

    def add_messages(self, *messages: dict) -> list[dict]:
        prior = getattr(self, "_prior", None)
        if prior is not None:
            # run() starts with the system and instance messages: the
            # conversation so far stands in their place
            self._prior = None
            self.messages.extend(prior)
            task = self.extra_template_vars.get("task", "")
            messages = (
                {
                    "role": "user",
                    "content": f"The user added a new task: {task}",
                    "extra": {"interrupt_type": "UserNewTask", "swetouch_turn": True},
                },
            )
        return super().add_messages(*messages)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: swetouch_mini_continue.py HISTORY MINI-ARGS...")
    ContinuingAgent.history = sys.argv[1]
    sys.argv = ["mini", *sys.argv[2:], "--agent-class", "__main__.ContinuingAgent"]
    from minisweagent.run.mini import app

    app()


if __name__ == "__main__":
    main()
