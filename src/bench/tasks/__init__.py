"""Tasks: the task model, the six families and their vocabularies, loading and validation."""

from .expectations import EXPECTATION_TYPES, Expectation
from .families import FAMILIES, VOCABULARY, Family
from .load import TaskSet, default_corpus_root, load_task_file, load_task_set, task_files
from .model import Budget, BuiltinTool, Case, Limits, Split, Task, TaskFile, ToolSpec, Write

__all__ = [
    "EXPECTATION_TYPES",
    "FAMILIES",
    "VOCABULARY",
    "Budget",
    "BuiltinTool",
    "Case",
    "Expectation",
    "Family",
    "Limits",
    "Split",
    "Task",
    "TaskFile",
    "TaskSet",
    "ToolSpec",
    "Write",
    "default_corpus_root",
    "load_task_file",
    "load_task_set",
    "task_files",
]
