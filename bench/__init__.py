"""Benchmarks of jupyter_agents against openai-agents. Run ``python -m bench.run``."""
