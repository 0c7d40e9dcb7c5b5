"""A task that could not be scored leaves the row's mean and is named: in board.json, in the
page's data and in the table; a private one by its id only. A row's card data carries the
engine its run declared. The runs are real (``unscored_runs``): judged checks with no judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from unscored_runs import (
    PRIVATE_UNSCORED,
    PUBLIC_UNSCORED,
    QUANTISATIONS,
    REASON,
    write_unscored_runs,
)


def _entries(site: Path) -> dict[str, dict[str, Any]]:
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    [cohort] = board["cohorts"]
    return {e["key"]: e for e in cohort["entries"]}


def _page_entries(site: Path) -> dict[str, dict[str, Any]]:
    html = (site / "index.html").read_text(encoding="utf-8")
    start = html.index('<script type="application/json" id="board-data">') + len(
        '<script type="application/json" id="board-data">'
    )
    data = json.loads(html[start : html.index("</script>", start)])
    [cohort] = data["board"]["cohorts"]
    return {e["key"]: e for e in cohort["entries"]}


def test_board_json_names_each_task_left_out_of_the_mean(unscored_site: Path) -> None:
    [good] = [e for e in _entries(unscored_site).values() if e["entrant"] == "mini-good"]
    assert good["tasks"] == 2  # qa-0001 and tool-0001: the mean is over these
    assert good["not_scored"] == [
        {"task_id": PUBLIC_UNSCORED, "family": "grounded-qa", "reason": REASON, "private": False},
        # private: the id only, no reason (as a private failed task shows no sentence)
        {"task_id": PRIVATE_UNSCORED, "family": "grounded-qa", "reason": None, "private": True},
    ]
    assert good["engine"] is None  # a scripted target declares no server
    assert "server" not in good["config"]


def test_the_page_carries_them_and_the_table_counts_them(unscored_site: Path) -> None:
    entries = _page_entries(unscored_site)
    [good] = [e for e in entries.values() if e["entrant"] == "mini-good"]
    assert [n["task_id"] for n in good["not_scored"]] == [PUBLIC_UNSCORED, PRIVATE_UNSCORED]
    html = (unscored_site / "index.html").read_text(encoding="utf-8")
    row = html[html.index(f'data-key="{good["key"]}"') :]
    row = row[: row.index("</tr>")]
    assert ">2 not scored</span>" in row
    assert 'title="2 of 4 tasks could not be scored' in row
    # the mock engine's runs could not score the judged tasks either: each row counts its own
    for entry in entries.values():
        row = html[html.index(f'data-key="{entry["key"]}"') :]
        row = row[: row.index("</tr>")]
        assert f">{len(entry['not_scored'])} not scored</span>" in row


def test_one_entrants_rows_in_a_cohort_show_the_engine_each_declared(
    unscored_site: Path,
) -> None:
    mocks = [e for e in _entries(unscored_site).values() if e["entrant"] == "mock-engine"]
    assert len(mocks) == 2 and len({m["fingerprint"] for m in mocks}) == 2
    assert sorted(m["engine"] for m in mocks) == sorted(
        f"bench-mock 1, quantisation {q}" for q in QUANTISATIONS
    )
    # the fingerprint hashes it, so the card's config shows it too
    assert sorted(m["config"]["server"]["quantisation"] for m in mocks) == sorted(QUANTISATIONS)


def test_a_cached_entry_keeps_them_and_one_cached_before_is_not_reused(tmp_path: Path) -> None:
    from dataclasses import asdict

    from bench.board.entries import from_summary
    from bench.board.entrycache import FORMAT, EntryCache
    from bench.core.keyed import write_keyed
    from bench.records import RunStore
    from bench.reports import summarize

    runs = write_unscored_runs(tmp_path)
    [run] = [r for r in RunStore(runs).runs() if r.config().entrant == "mini-good"]
    entry = from_summary(summarize(run), source="run", source_path="runs/x", verified=False,
                         verified_note="local run", repo_url=None)  # fmt: skip
    assert [n.task_id for n in entry.not_scored] == [PUBLIC_UNSCORED, PRIVATE_UNSCORED]
    cache = EntryCache(tmp_path / "cache")
    key = EntryCache.key("bundle")
    assert cache.put(key, entry, b"\x01")
    assert cache.get(key) == (entry, b"\x01")
    # the file an earlier build wrote: format 1, no not_scored field
    old = asdict(entry)
    del old["not_scored"]
    raw = {"format": "bench-board-entry/1", "digest": "01", "entry": old}
    write_keyed(tmp_path / "cache", key, ".json", json.dumps(raw).encode())
    assert cache.get(key) is None
    assert FORMAT != "bench-board-entry/1"
