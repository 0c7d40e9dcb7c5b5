"""Checks that read the tool calls: ``trajectory``.

The check compares the expectation with the tools that *ran* — the names in
``trace.tool_calls``, in the order they ran — and never with the answer text: an agent that
says it looked something up and did not is not credited. A call whose ``error`` is set still
ran (the agent asked for it and the mock world executed it), so it counts as called for
``required``, ``order``, ``forbidden`` and ``max_calls`` alike.

Sub-checks and credit
---------------------
* one sub-check per distinct ``required`` tool: it ran at least once;
* one for ``order``, when given: the list appears as a subsequence of the calls (other calls
  may come between, and a repeated call may satisfy the order with any of its runs);
* one for ``max_calls``, when given: at most that many calls in all;
* one for ``forbidden``, when given: none of those tools ran.

Credit is the share of sub-checks that hold, except that a forbidden call forces 0 — running a
tool the task forbids is the expensive mistake, and no amount of right calls around it makes it
partly right — and that the ``forbidden`` and ``max_calls`` sub-checks are *conditions*: when
the check also has ``required`` or ``order`` (a goal), they count as held only once every
required tool ran in order. Not calling a tool is what an agent that does nothing does; it earns
nothing until the job is done. Likewise, when ``required`` names a write tool (``kind: write``),
the required read tools are conditions too: they count once every required write ran, so
looking up the order is not credited until the refund is issued. An expectation with no
sub-checks at all decides nothing and is reported undecided rather than passed.

A call the world refused before running it — its arguments are not what the tool's schema
accepts (``roles.refused``) — never reached its tool: it does not count for ``required`` or
``order`` (it still counts for ``forbidden`` and ``max_calls``), and the sentence says so:
"missing required tool(s) issue_refund (called: get_order, issue_refund); the schema refused
every call of issue_refund".

Sentences join the failing sub-checks with '; ' and show the calls that ran once, on the first
clause that needs them: "missing required tool(s) search_docs (called: get_policy)".
"""

from __future__ import annotations

from bench.core.score import Verdict
from bench.tasks.expectations import Trajectory

from .base import ScoringContext, count, failed, names, passed, register, undecided
from .roles import asked_arguments, reached, rejected_elsewhere, write_tools


def _order_break(order: list[str], called: list[str]) -> int | None:
    """Index in ``order`` of the first tool that does not run after its predecessor, or None
    when ``order`` is a subsequence of ``called``."""
    position = 0
    for index, tool in enumerate(order):
        try:
            position = called.index(tool, position) + 1
        except ValueError:
            return index
    return None


@register("trajectory")
def score_trajectory(expectation: Trajectory, context: ScoringContext) -> Verdict:
    called = context.trace.tools_called()
    asked = asked_arguments(context.task)
    kept = reached(context.task, context.trace.tool_calls)  # a call the schema refused did nothing
    # ... and so did a write the world rejected on arguments no goal asks for
    done = [call.name for call in kept if not rejected_elsewhere(context.task, call, asked)]
    ran = set(done)
    listing = [f" (called: {names(called)})"]

    def shown() -> str:
        """The call list, given once per sentence: to the first clause that wants it."""
        return listing.pop() if listing else ""

    required = list(dict.fromkeys(expectation.required))
    held = 0
    total = 0
    conditions_held = 0
    problems: list[str] = []

    missing = [tool for tool in required if tool not in ran]
    total += len(required)
    writes = write_tools(context.task)
    if any(tool in writes for tool in required):
        # Reads are how, writes are what: a required read counts once every required write ran.
        held += sum(1 for tool in required if tool in writes and tool in ran)
        goal_required = sum(1 for tool in required if tool in writes)
        if held == goal_required:
            held += sum(1 for tool in required if tool not in writes and tool in ran)
    else:
        held += len(required) - len(missing)
    if missing:
        reaching = {call.name for call in kept}
        refused = [tool for tool in missing if tool in called and tool not in reaching]
        rejected = [tool for tool in missing if tool in reaching]
        why = f"; the schema refused every call of {names(refused)}" if refused else ""
        if rejected:
            why += (
                f"; the world rejected the calls of {names(rejected)} that reached it, on "
                "arguments the task did not ask for"
            )
        problems.append(f"missing required tool(s) {names(missing)}{shown()}{why}")

    forbidden_ran: list[str] = []
    if expectation.forbidden:
        total += 1
        forbidden_ran = [tool for tool in dict.fromkeys(called) if tool in expectation.forbidden]
        if forbidden_ran:
            problems.append(f"called forbidden tool(s) {names(forbidden_ran)}")
        else:
            conditions_held += 1

    if expectation.order:
        total += 1
        broken = _order_break(expectation.order, done)
        if broken is None:
            held += 1
        elif broken == 0:
            following = expectation.order[1] if len(expectation.order) > 1 else None
            before = f" before {following}" if following is not None else ""
            problems.append(f"{expectation.order[0]} must run{before}{shown()}")
        else:
            problems.append(
                f"{expectation.order[broken - 1]} must run before "
                f"{expectation.order[broken]}{shown()}"
            )

    if expectation.max_calls is not None:
        total += 1
        if len(called) <= expectation.max_calls:
            conditions_held += 1
        else:
            problems.append(
                f"made {count(len(called), 'tool call')}, the task allows {expectation.max_calls}"
            )

    if total == 0:
        return undecided(
            expectation, "the trajectory check names no tools and no limit, so it decides nothing"
        )
    if not problems:
        return passed(expectation, f"the tool calls meet the trajectory{shown()}")
    goal_total = len(required) + (1 if expectation.order else 0)
    if held == goal_total:  # conditions count once the goal is met (or when there is none)
        held += conditions_held
    credit = 0.0 if forbidden_ran else held / total
    return failed(expectation, "; ".join(problems), credit)


__all__ = ["score_trajectory"]
