"""Ask a configured AI engine for a decision, the way the game service does.

    president ai-worker --port 50051 &          # the built-in levels
    python examples/third_party_bot.py &        # a bot of your own on port 6000
    python examples/ask_an_engine.py greedy

The client knows engines by name only (here from PRESIDENT_AI_ENGINES) and rejects
any answer that is not one of the legal actions it sent.
"""

from __future__ import annotations

import os
import sys

from engine import Rules, new_series, observe
from workers.rpc.client import AiClient, engines_from_env

engines = engines_from_env() | {"greedy": os.environ.get("GREEDY_BOT", "127.0.0.1:6000")}
state = new_series(Rules.preset("cardverse"), seed=7)
view = observe(state, state.to_act)  # what the seat to act may see, and nothing more
with AiClient(engines) as client:
    name = sys.argv[1] if len(sys.argv) > 1 else "easy"
    print(f"{name} plays {client.decide(view, name, seed=1)} from {' '.join(map(str, view.hand))}")
