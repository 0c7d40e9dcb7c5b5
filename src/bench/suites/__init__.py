"""Public suites converted into this project's task model, scored through the same chain.

Today: BFCL v4's single-turn categories (``bfcl``), scored by the ``calls`` check, whose
matching rules are BFCL's own AST checker (``astmatch``, with ``literals`` for Java and
JavaScript arguments). docs/SUITES.md says what is imported, what is not, and why.
"""

from .astmatch import Expected, Param, Signature, match, signature_of
from .bfcl import CATEGORIES, Imported, bfcl_id, import_bfcl, locate, task_id

__all__ = [
    "CATEGORIES",
    "Expected",
    "Imported",
    "Param",
    "Signature",
    "bfcl_id",
    "import_bfcl",
    "locate",
    "match",
    "signature_of",
    "task_id",
]
