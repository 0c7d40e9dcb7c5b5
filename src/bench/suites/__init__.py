"""Public suites converted into this project's task model, scored through the same chain.

Today: BFCL v4's single-turn categories (``bfcl``), scored by the ``calls`` check, whose
matching rules are BFCL's own AST checker (``astmatch``, with ``literals`` for Java and
JavaScript arguments). docs/SUITES.md says what is imported, what is not, and why.

The modules are imported by name (``bench.suites.astmatch``, ``bench.suites.bfcl``): the
package itself imports nothing, so the ``calls`` scorer, which every run loads, pays for the
matcher and not for the importer (39 ms and 3.6 MiB of a run's start; issue 19).
"""
