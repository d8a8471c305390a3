"""Jupyter kernels the runtime starts for its tools (the code interpreter): each in its own
process, sandboxed like shell commands, driven from one background event loop, and never left
behind when this process ends."""

from __future__ import annotations

from .managed import KernelResult, ManagedKernel

__all__ = ["KernelResult", "ManagedKernel"]
