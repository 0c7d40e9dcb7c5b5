"""Budgets enforced while running: per attempt (inside the agent loop) and per run (between
attempts). Exceeding a task budget makes the attempt *over budget*, a failure that names what
ran out; a run budget that runs out leaves the attempts it prevented *skipped*."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.core.budget import Budget


class OverBudget(Exception):
    """Raised inside an attempt; the runner records it as the attempt's outcome."""

    def __init__(self, exceeded: list[str], detail: str) -> None:
        self.exceeded = exceeded
        self.detail = detail
        super().__init__(detail)


def effective_budget(task: Budget, override: Budget) -> Budget:
    """The run's per-task override wins where it is set; otherwise the task's own budget."""
    return Budget(
        tokens=override.tokens if override.tokens is not None else task.tokens,
        tool_calls=override.tool_calls if override.tool_calls is not None else task.tool_calls,
        seconds=override.seconds if override.seconds is not None else task.seconds,
        dollars=override.dollars if override.dollars is not None else task.dollars,
    )


@dataclass
class Meter:
    """What an attempt (or a run) has spent so far, against its caps."""

    caps: Budget
    tokens: int = 0
    tool_calls: int = 0
    dollars: float = 0.0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def over(self) -> list[tuple[str, str]]:
        """Every cap that is exceeded, as (name, 'spent > cap')."""
        out: list[tuple[str, str]] = []
        caps = self.caps
        if caps.tokens is not None and self.tokens > caps.tokens:
            out.append(("tokens", f"tokens {self.tokens} > {caps.tokens}"))
        if caps.tool_calls is not None and self.tool_calls > caps.tool_calls:
            out.append(("tool_calls", f"tool calls {self.tool_calls} > {caps.tool_calls}"))
        if caps.dollars is not None and self.dollars > caps.dollars:
            out.append(("dollars", f"dollars {self.dollars:.6f} > {caps.dollars}"))
        if caps.seconds is not None and self.seconds > caps.seconds:
            out.append(("seconds", f"seconds {self.seconds:.2f} > {caps.seconds}"))
        return out

    def exhausted(self) -> list[tuple[str, str]]:
        """Caps already reached (spent ≥ cap): for a run budget, no new attempt may start."""
        out: list[tuple[str, str]] = []
        caps = self.caps
        if caps.tokens is not None and self.tokens >= caps.tokens:
            out.append(("tokens", f"tokens {self.tokens} ≥ {caps.tokens}"))
        if caps.tool_calls is not None and self.tool_calls >= caps.tool_calls:
            out.append(("tool_calls", f"tool calls {self.tool_calls} ≥ {caps.tool_calls}"))
        if caps.dollars is not None and self.dollars >= caps.dollars:
            out.append(("dollars", f"dollars {self.dollars:.6f} ≥ {caps.dollars}"))
        if caps.seconds is not None and self.seconds >= caps.seconds:
            out.append(("seconds", f"seconds {self.seconds:.2f} ≥ {caps.seconds}"))
        return out

    def check(self) -> None:
        exceeded = self.over()
        if exceeded:
            raise OverBudget(
                [name for name, _ in exceeded],
                "over budget: " + "; ".join(text for _, text in exceeded),
            )


__all__ = ["Meter", "OverBudget", "effective_budget"]
