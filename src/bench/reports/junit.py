"""A run as JUnit XML, for CI dashboards: one ``<testcase>`` per task.

``classname`` is the task's family and ``name`` its id. A task that failed carries
``<failure>`` with the sentences that failed it; a task with an errored or over-budget attempt
carries ``<error>`` instead; a task that could not be scored, or whose attempts were all
skipped, carries ``<skipped>``. At most one of the three per test case (the common JUnit XSD).
Characters XML 1.0 cannot hold are removed from every text and attribute.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from bench.core.clock import iso_z

from .summary import RunSummary
from .tracetext import trace_text

_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    return _INVALID_XML.sub("", text)


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attrs.items()})


def render_junit(summary: RunSummary) -> str:
    config = summary.config
    scores = {s.task_id: s for s in summary.task_scores}
    failures = {f.task_id: f for f in summary.failures}
    unscorable = dict(summary.not_scorable)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    suite_time = 0.0
    suite = ET.Element("testsuite")
    props = ET.SubElement(suite, "properties")
    head = summary.headline
    properties = {
        "run_id": config.run_id,
        "entrant": config.entrant,
        "config_fingerprint": config.fingerprint(),
        "cohort_key": config.cohort_key(),
        "status": summary.status.status,
        "headline": "not scorable" if head is None else f"{head.score.value:.6f}",
        "interval": ""
        if head is None
        else f"[{head.score.interval.lo:.6f}, "
        f"{head.score.interval.hi:.6f}] {head.score.interval.method}",
        "cost": summary.cost_note,
        **({"subset": label} if (label := config.task_set.subset_label()) else {}),
        **({} if config.task_set.suite.is_default else {"suite": config.task_set.suite_label()}),
        **({"reference": name} if (name := config.reference()) else {}),
    }
    for name, value in properties.items():
        _sub(props, "property", name=name, value=value)
    for task_id in config.task_set.task_ids:
        records = [r for r in summary.records if r.task_id == task_id]
        score = scores.get(task_id)
        family = score.family if score else (records[0].family if records else "unknown")
        seconds = sum(r.trace.latency_s for r in records)
        suite_time += seconds
        case = _sub(suite, "testcase", name=task_id, classname=family, time=f"{seconds:.3f}")
        counts["tests"] += 1
        errored = [r for r in records if r.outcome in ("errored", "over_budget")]
        if score is None or score.value is None:
            why = unscorable.get(task_id, "skipped: no attempt was made")
            _sub(case, "skipped", message=why)
            counts["skipped"] += 1
        elif errored:
            first = errored[0]
            node = _sub(
                case, "error", message=f"{first.outcome}: {first.reason}", type=first.outcome
            )
            node.text = xml_text("\n\n".join(trace_text(r) for r in errored))
            counts["errors"] += 1
        elif task_id in failures:
            lines = failures[task_id].lines
            node = _sub(case, "failure", message=lines[0] if lines else "failed", type="failed")
            traces = "\n\n".join(trace_text(r) for r in records)
            node.text = xml_text("\n".join(lines) + "\n\n" + traces)
            counts["failures"] += 1
    attrs = {k: str(v) for k, v in counts.items()}
    suite.attrib.update(
        {
            "name": xml_text(config.display_name),
            "timestamp": iso_z(summary.status.started_at),
            "time": f"{suite_time:.3f}",
            "id": config.run_id,
            **attrs,
        }
    )
    root = ET.Element("testsuites", {"name": "bench", "time": f"{suite_time:.3f}", **attrs})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


__all__ = ["render_junit", "xml_text"]
