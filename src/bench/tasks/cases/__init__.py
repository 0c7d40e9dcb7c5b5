"""The one-screen case format: its model, import to task files, export back, static checks."""

from .check import Checked, Finding, Policy, PolicyFile, check, missing_tools
from .convert import from_tasks, load_case_file, render_task_file, to_tasks
from .model import CaseFile, CaseStep, OneCase, ToolsFile, WorldTool

__all__ = [
    "CaseFile",
    "CaseStep",
    "Checked",
    "Finding",
    "OneCase",
    "Policy",
    "PolicyFile",
    "ToolsFile",
    "WorldTool",
    "check",
    "from_tasks",
    "load_case_file",
    "missing_tools",
    "render_task_file",
    "to_tasks",
]
