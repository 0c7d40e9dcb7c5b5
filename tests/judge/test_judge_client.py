"""The judge over real HTTP: verdicts, the cache (counted at the server), cost, and outages
that are unscored and never cached."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest

from bench.scorers.judge.cache import JudgeCache, cache_key
from bench.scorers.judge.client import Judge
from bench.scorers.judge.config import load_judge_config
from bench.scorers.judge.errors import JudgeCacheError, JudgeUnavailable

RUBRIC = "The answer says approved refunds arrive within 7 business days."
QUESTION = "How long does an approved refund take?"
ANSWER = "Within 7 business days [faq.md#refunds]."


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    with JudgeCache(tmp_path / "verdicts.sqlite3") as opened:
        yield opened


def make_judge(judge_file: Any, cache: JudgeCache, **overrides: Any) -> Judge:
    return Judge(load_judge_config(judge_file(**overrides)), cache)


def test_a_verdict_is_asked_once_then_served_from_the_cache(
    judge_file: Any, cache: JudgeCache, server: Any, api_key: str
) -> None:
    judge = make_judge(judge_file, cache)
    server.script(server.Reply("FAIL: it says 14 days."))
    first = judge.decide(RUBRIC, QUESTION, ANSWER)
    assert (first.passed, first.reason, first.cached) == (False, "it says 14 days.", False)
    assert server.count == 1
    body = server.bodies[0]
    assert body["model"] == "fake-judge-1"
    assert body["temperature"] == 0.0
    assert body["messages"][0]["role"] == "system"
    assert RUBRIC in body["messages"][1]["content"] and ANSWER in body["messages"][1]["content"]
    assert server.headers[0]["Authorization"] == f"Bearer {api_key}"

    again = judge.decide(RUBRIC, QUESTION, ANSWER)
    assert (again.passed, again.reason, again.cached) == (False, "it says 14 days.", True)
    assert server.count == 1  # the cache hit made no request
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)


def test_the_cache_survives_the_process_and_is_shared_by_judges(
    judge_file: Any, tmp_path: Path, server: Any
) -> None:
    path = tmp_path / "shared.sqlite3"
    with JudgeCache(path) as first:
        make_judge(judge_file, first).decide(RUBRIC, QUESTION, ANSWER)
    with JudgeCache(path) as second:
        decision = make_judge(judge_file, second).decide(RUBRIC, QUESTION, ANSWER)
    assert decision.cached and server.count == 1


def test_the_cache_key_is_what_was_asked_not_where_it_came_from() -> None:
    base = {
        "rubric": RUBRIC,
        "prompt": QUESTION,
        "answer": ANSWER,
        "model": "m",
        "temperature": 0.0,
        "template": "t",
    }
    key = cache_key(**base)  # type: ignore[arg-type]
    assert key == cache_key(**{**base, "temperature": 0})  # type: ignore[arg-type]
    for field, value in [
        ("rubric", RUBRIC + " It cites the FAQ."),
        ("prompt", QUESTION + " Exactly?"),
        ("answer", ANSWER.replace("7", "8")),
        ("model", "m2"),
        ("temperature", 0.2),
        ("template", "t2"),
    ]:
        assert cache_key(**{**base, field: value}) != key, field  # type: ignore[arg-type]


def test_each_part_of_the_key_makes_a_new_request(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    judge = make_judge(judge_file, cache)
    judge.decide(RUBRIC, QUESTION, ANSWER)
    judge.decide(RUBRIC + " And cites it.", QUESTION, ANSWER)
    judge.decide(RUBRIC, QUESTION, ANSWER + " Usually.")
    judge.decide(RUBRIC, QUESTION + " Really?", ANSWER)
    assert server.count == 4
    make_judge(judge_file, cache, model="fake-judge-2").decide(RUBRIC, QUESTION, ANSWER)
    make_judge(judge_file, cache, temperature=0.5).decide(RUBRIC, QUESTION, ANSWER)
    assert server.count == 6
    # A different URL, timeout or key variable is the same judge: served from the cache.
    make_judge(judge_file, cache, timeout_s=9).decide(RUBRIC, QUESTION, ANSWER)
    assert server.count == 6


def test_cost_comes_from_the_pricing_and_the_reported_usage(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    judge = make_judge(
        judge_file, cache, pricing={"prompt_per_mtok": 0.15, "completion_per_mtok": 0.60}
    )
    server.script(
        server.Reply("PASS", usage={"prompt_tokens": 1000, "completion_tokens": 200}),
        server.Reply(
            "PASS",
            usage={
                "prompt_tokens": 1000,
                "completion_tokens": 100,
                "prompt_tokens_details": {"cached_tokens": 400},
            },
        ),
        server.Reply("PASS", usage={}),
    )
    first = judge.decide(RUBRIC, QUESTION, "a")
    assert first.usage is not None and first.usage.total == 1200
    assert first.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    second = judge.decide(RUBRIC, QUESTION, "b")
    assert second.usage is not None and second.usage.cached_tokens == 400
    assert second.cost_usd == pytest.approx((1000 * 0.15 + 100 * 0.60) / 1e6)
    unmeasured = judge.decide(RUBRIC, QUESTION, "c")
    assert unmeasured.usage is None and unmeasured.cost_usd is None  # not measured, never $0
    assert judge.spent_usd == pytest.approx((150 + 120 + 150 + 60) / 1e6)
    hit = judge.decide(RUBRIC, QUESTION, "a")
    assert hit.cached and hit.cost_usd == first.cost_usd and hit.usage == first.usage
    assert judge.spent_usd == pytest.approx((150 + 120 + 150 + 60) / 1e6)  # a hit is free
    assert server.count == 3


def test_no_pricing_means_no_cost(judge_file: Any, cache: JudgeCache, server: Any) -> None:
    decision = make_judge(judge_file, cache).decide(RUBRIC, QUESTION, ANSWER)
    assert decision.usage is not None and decision.cost_usd is None
    assert Judge(load_judge_config(judge_file()), cache).spent_usd is None


def test_a_500_is_unscored_and_not_cached_and_a_later_reply_is(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    judge = make_judge(judge_file, cache)
    server.script(server.Reply(status=500), server.Reply("PASS: fine"))
    with pytest.raises(JudgeUnavailable) as info:
        judge.decide(RUBRIC, QUESTION, ANSWER)
    assert info.value.reason.startswith(f"HTTP 500 from {server.url}/chat/completions")
    assert "the judge fell over" in info.value.reason
    assert info.value.code == "JUDGE_UNAVAILABLE"
    assert len(cache) == 0 and judge.outages == 1
    decision = judge.decide(RUBRIC, QUESTION, ANSWER)
    assert decision.passed and not decision.cached
    assert len(cache) == 1 and server.count == 2
    assert judge.decide(RUBRIC, QUESTION, ANSWER).cached and server.count == 2


@pytest.mark.parametrize("status", [429, 503])
def test_other_error_statuses_are_outages_too(
    judge_file: Any, cache: JudgeCache, server: Any, status: int
) -> None:
    server.script(server.Reply(status=status))
    with pytest.raises(JudgeUnavailable, match=f"HTTP {status}"):
        make_judge(judge_file, cache).decide(RUBRIC, QUESTION, ANSWER)
    assert len(cache) == 0


def test_a_timeout_is_unscored_within_the_deadline_and_not_cached(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    judge = make_judge(judge_file, cache, timeout_s=0.5)
    server.script(server.Reply("PASS", delay_s=10), server.Reply("FAIL: no"))
    started = time.monotonic()
    with pytest.raises(JudgeUnavailable) as info:
        judge.decide(RUBRIC, QUESTION, ANSWER)
    assert time.monotonic() - started < 3
    assert info.value.reason == f"no reply within 0.5s from {server.url}/chat/completions"
    assert len(cache) == 0
    decision = judge.decide(RUBRIC, QUESTION, ANSWER)
    assert (decision.passed, decision.cached) == (False, False)
    assert len(cache) == 1


def test_the_deadline_is_overall_not_per_phase(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    """Headers at once, then one byte every 0.2 s: no single read waits 0.5 s, yet the whole
    reply would take minutes. The overall deadline ends it."""
    judge = make_judge(judge_file, cache, timeout_s=0.5)
    server.script(server.Reply("PASS", trickle_s=0.2))
    started = time.monotonic()
    with pytest.raises(JudgeUnavailable, match="no reply within 0.5s"):
        judge.decide(RUBRIC, QUESTION, ANSWER)
    assert time.monotonic() - started < 3
    assert len(cache) == 0


def test_a_connection_error_is_an_outage(judge_file: Any, cache: JudgeCache) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = make_judge(judge_file, cache, base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(JudgeUnavailable, match=f"cannot reach http://127.0.0.1:{port}/v1/chat"):
        judge.decide(RUBRIC, QUESTION, ANSWER)
    assert len(cache) == 0


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ({"raw": b"<html>gateway</html>"}, "not JSON"),
        ({"raw": b'{"choices": []}'}, "no choices[0].message.content"),
        ({"raw": b'{"choices": [{"message": {"role": "assistant"}}]}'}, "no choices[0]"),
    ],
)
def test_a_reply_that_is_not_a_chat_completion_is_an_outage_and_not_cached(
    judge_file: Any, cache: JudgeCache, server: Any, reply: dict[str, Any], words: str
) -> None:
    server.script(server.Reply(**reply))
    with pytest.raises(JudgeUnavailable) as info:
        make_judge(judge_file, cache).decide(RUBRIC, QUESTION, ANSWER)
    assert words in info.value.reason
    assert len(cache) == 0


def test_a_file_that_is_not_a_cache_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not-a-cache.sqlite3"
    path.write_text("this is not sqlite, and it is long enough to have a header" * 10)
    with pytest.raises(JudgeCacheError) as info:
        JudgeCache(path)
    assert info.value.code == "JUDGE_CACHE_INVALID" and info.value.path == str(path)


def test_a_judge_without_a_key_variable_sends_no_authorization(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    make_judge(judge_file, cache, api_key_env=None).decide(RUBRIC, QUESTION, ANSWER)
    assert "Authorization" not in server.headers[0]


def test_scoring_threads_share_one_judge(judge_file: Any, cache: JudgeCache, server: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    judge = make_judge(judge_file, cache)
    answers = [f"answer {index}" for index in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        decisions = list(pool.map(lambda a: judge.decide(RUBRIC, QUESTION, a), answers * 2))
    assert all(d.passed for d in decisions)
    assert len(cache) == 8 and cache.hits + cache.misses == 16
    assert server.count == judge.requests == cache.misses


def test_deciding_from_inside_an_event_loop_still_works(
    judge_file: Any, cache: JudgeCache, server: Any
) -> None:
    import asyncio

    judge = make_judge(judge_file, cache)

    async def on_the_loop() -> bool:
        return judge.decide(RUBRIC, QUESTION, ANSWER).passed

    assert asyncio.run(on_the_loop()) and server.count == 1


def test_a_short_key_does_not_cut_letters_out_of_messages(judge_file: Any) -> None:
    """A key of one letter (a test key, ``JUDGE_API_KEY=x``) turned "expected" into
    "e[redacted]pected" in every message; the targets already leave keys under 6 characters
    alone. A real key is still redacted."""
    from bench.scorers.judge.client import JudgeClient

    config = load_judge_config(judge_file())
    assert JudgeClient(config, "x").redact("expected PASS") == "expected PASS"
    long_key = "sk-test-0123456789"
    said = JudgeClient(config, long_key).redact(f"bad key {long_key}")
    assert said == "bad key [redacted]"
