"""The suite manifest ``bench suite import bfcl`` writes beside the tasks (``DIR/suite.json``).

It names the suite (``bfcl-v4``, the wheel's version), says whose data it is and under which
licence, and carries the methodology note the board shows on the suite's page: how a BFCL task
is scored here, what the headline means, and what was left out (docs/SUITES.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from bench.core.suite import SuiteManifest

SUITE_NAME = "bfcl-v4"
TITLE = "BFCL v4, single-turn categories"

SOURCE = """\
The [Berkeley Function Calling Leaderboard (BFCL)](https://gorilla.cs.berkeley.edu/leaderboard.html),
Shishir G. Patil, Huanzhi Mao et al., Sky Computing Lab, UC Berkeley
([source](https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard)),
as shipped in the PyPI wheel bfcl-eval {version}. The questions, function docs and possible
answers are BFCL's; the task wrapping is bench-suite's (`bench suite import bfcl`)."""

METHODOLOGY = """\
**How a BFCL task is scored here.** Every task is one single-turn BFCL case with one `calls`
check, whose matching is a rule-for-rule port of BFCL's AST checker (`ast_checker.py`). BFCL
scores one model response, so the check reads the calls of the first assistant message that
made any and nothing after it: a later retry neither repairs nor spoils the attempt.

- **Calls** (simple, multiple, parallel, parallel_multiple and their live_ versions): the
  response must call the expected function(s) with every required argument, no argument the
  function does not declare, and each value among the case's possible answers, with types read
  as BFCL reads them (Java and JavaScript arguments are literals in strings). Parallel calls
  match in any order, each expected call taking the first unmatched call that fits it
  (greedy, as in BFCL).
- **Irrelevance** (irrelevance, live_irrelevance): passes when the response makes no
  well-formed call; arguments that are not a JSON object are no call, as in BFCL.
- **Relevance** (live_relevance): passes when some call is made.
- An attempt whose endpoint failed is a failure, as everywhere on this board.

**What the headline means.** All tasks are one family, so the headline is the plain mean over
tasks, each task once. BFCL's own overall accuracy weights categories differently and includes
multi-turn and agentic parts that are not imported: the numbers on this page are not BFCL
leaderboard numbers.

**Category columns.** Beside the headline, each BFCL category is a column, named as BFCL
spells it (simple_python ... live_relevance): the run's mean over that category's tasks, each
task once, with its 95 % interval, drawn as the headline's is (the run's recorded seed; the
figures `bench suite scores` prints for the run). Errors count as failures there too; a task
no check decided leaves its category's mean, as it leaves the headline. A category the run
did not attempt (a run of chosen tasks) says "not run", never 0; a partial run shows none, as
it shows no headline. The headline is not the mean of these columns (it weighs each category
by its number of tasks), and no figure on this page is BFCL's overall accuracy.

Categories imported: {categories}. Left out: multi-turn and agentic
categories, and the cases no output can pass or that duplicate another exactly (listed in the
import's README.md). Verified against the official checker on scripted outputs: see
docs/SUITES.md in bench-suite."""


def bfcl_manifest(version: str, licence: str, categories: Iterable[str]) -> SuiteManifest:
    """The manifest of an import from bfcl-eval ``version`` of ``categories``."""
    return SuiteManifest(
        name=SUITE_NAME,
        version=version,
        title=TITLE,
        source=SOURCE.format(version=version),
        licence=licence,
        methodology=METHODOLOGY.format(categories=", ".join(categories)),
    )


__all__ = ["SUITE_NAME", "TITLE", "bfcl_manifest"]
