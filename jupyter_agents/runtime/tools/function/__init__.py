"""Function tools: Python functions the model calls, their schemas and argument models."""
