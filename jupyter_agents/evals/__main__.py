"""``python -m jupyter_agents.evals gate BASELINE.json CURRENT.json --max-drop 0.02``."""

from __future__ import annotations

import sys

from .gate import main

if __name__ == "__main__":
    sys.exit(main())
