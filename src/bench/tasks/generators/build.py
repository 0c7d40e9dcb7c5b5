"""From generator data to tasks: one builder per family, every claim checked on the way.

``build_tasks`` returns task mappings in a fixed order (public then private within each
family, data order within each split); ``render_files`` turns them into the bytes of
``tasks/<family>.<split>.yaml`` and ``tasks/CORPORA.sha256``. Nothing here reads a clock, a
random source or the environment, so the output is byte-identical on every run.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bench.tasks.families import FAMILIES

from . import claims
from .source import DATA_DIR, Datum, load_list, load_mapping

PREFIX = {
    "grounded-qa": "gqa",
    "tool-trajectory": "tool",
    "structured-extraction": "ext",
    "multi-turn-state": "mts",
    "refusal-and-safety": "ref",
    "long-horizon": "lh",
}
SPLITS = ("public", "private")
SHORT = {"public": "pub", "private": "prv"}
SIDE = {"refuse": "must decline", "help": "must help"}

EXPECTED_COUNTS: dict[str, tuple[int, int]] = {
    "grounded-qa": (40, 40),
    "tool-trajectory": (8, 8),
    "structured-extraction": (8, 8),
    "multi-turn-state": (8, 8),
    "refusal-and-safety": (16, 16),
    "long-horizon": (6, 6),
}

MANIFEST = "CORPORA.sha256"

EXTRACTION_PROMPT = {
    "en": (
        "Extract the invoice below into a JSON object with exactly these keys: invoice_number "
        "(string, or null when the document has none), issue_date (YYYY-MM-DD), seller, "
        "currency (ISO 4217 code), net_total, vat_amount and total (numbers; negative on a "
        "credit note). Reply with the JSON object only.\n\nDocument:\n"
    ),
    "tr": (
        "Aşağıdaki faturayı tam olarak şu anahtarları içeren bir JSON nesnesine çıkar: "
        "invoice_number (metin; belgede yoksa null), issue_date (YYYY-AA-GG), seller, currency "
        "(ISO 4217 kodu), net_total, vat_amount ve total (sayı; iade faturasında negatif). "
        "Yalnızca JSON nesnesiyle yanıt ver.\n\nBelge:\n"
    ),
}

PRIVATE_PREFIX = "private-"

INVOICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "invoice_number",
        "issue_date",
        "seller",
        "currency",
        "net_total",
        "vat_amount",
        "total",
    ],
    "properties": {
        "invoice_number": {"type": ["string", "null"]},
        "issue_date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "seller": {"type": "string"},
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "net_total": {"type": "number"},
        "vat_amount": {"type": "number"},
        "total": {"type": "number"},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Generated:
    """One generated task and the datum it came from (for error messages)."""

    task: dict[str, Any]
    datum: Datum


class Builder:
    """Builds every task from the data in ``data_dir`` against ``passages`` (id -> text)."""

    def __init__(self, data_dir: Path, passages: Mapping[str, str]) -> None:
        self.data_dir = data_dir
        self.passages = dict(passages)
        self.documents = sorted({pid.split("#", 1)[0] for pid in self.passages})
        # Documents named private-*.md are searched only by private tasks: they hold the
        # passages private grounded questions need, which no public task needs.
        self.public_documents = [d for d in self.documents if not d.startswith(PRIVATE_PREFIX)]
        self.worlds: dict[str, Datum] = {}
        for world in load_list(data_dir / "worlds.yaml", "worlds"):
            self._because(world)
            if world.id in self.worlds:
                raise world.fail(f"world id '{world.id}' is defined twice", "GEN_DUPLICATE_ID")
            world.get("tools", list)
            world.get("state", dict)
            self.worlds[world.id] = world

    # -- shared pieces -------------------------------------------------------------------

    @staticmethod
    def _because(datum: Datum) -> str:
        because = datum.get("because", str)
        if not because.strip():
            raise datum.fail("'because' is empty")
        return str(because)

    def _passage(self, datum: Datum, passage_id: str) -> str:
        if passage_id not in self.passages:
            raise datum.fail(f"passage '{passage_id}' is not in the corpus", "GEN_PASSAGE_MISSING")
        return self.passages[passage_id]

    def _world(self, datum: Datum) -> Datum:
        name = datum.get("world", str)
        if name not in self.worlds:
            raise datum.fail(f"world '{name}' is not defined in worlds.yaml", "GEN_WORLD_UNKNOWN")
        return self.worlds[name]

    def _tools(self, world: Datum, with_search: bool) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = copy.deepcopy(world.data["tools"])
        if with_search:
            tools = [{"builtin": "search_docs", "k": 3}, *tools]
        return tools

    def _check_tools(
        self, datum: Datum, expectations: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> None:
        offered = {tool.get("name", tool.get("builtin")) for tool in tools}
        missing = sorted(claims.tools_named(expectations) - offered)
        if missing:
            raise datum.fail(
                f"names tool(s) {', '.join(missing)} that this task's world does not have "
                f"(it has: {', '.join(sorted(str(name) for name in offered))})",
                "GEN_TOOL_NOT_IN_WORLD",
            )

    def _check_citations(self, datum: Datum, expectations: list[dict[str, Any]]) -> None:
        for expectation in expectations:
            if expectation.get("type") == "citations":
                for passage_id in expectation.get("required", []):
                    self._passage(datum, passage_id)

    @staticmethod
    def _task(
        *,
        family: str,
        split: str,
        slug: str,
        language: str,
        messages: list[dict[str, Any]],
        expectations: list[dict[str, Any]],
        because: str,
        tags: list[str],
        tools: list[dict[str, Any]] | None = None,
        state: dict[str, Any] | None = None,
        corpus: list[str] | None = None,
    ) -> dict[str, Any]:
        task: dict[str, Any] = {
            "id": f"{PREFIX[family]}-{SHORT[split]}-{slug}",
            "family": family,
            "split": split,
            "language": language,
            "input": messages,
        }
        if tools:
            task["tools"] = tools
        if state:
            task["state"] = state
        if corpus:
            task["corpus"] = corpus
        task["expectations"] = expectations
        task["because"] = because
        task["tags"] = sorted(set(tags))
        return task

    # -- families ------------------------------------------------------------------------

    def corpus(self, split: str) -> list[str]:
        """The documents a task of ``split`` searches: private documents only in private."""
        return list(self.documents if split == "private" else self.public_documents)

    def grounded(self) -> list[Generated]:
        out: list[Generated] = []
        search = [{"builtin": "search_docs", "k": 3}]
        for datum in load_list(self.data_dir / "facts.yaml", "facts"):
            shared_because = self._because(datum)
            shared_passage = datum.get("passage", str)
            for split in SPLITS:
                probe = datum.child(split)
                # A probe may rest on its own passage (and then says its own 'because').
                passage_id = probe.get("passage", str, shared_passage)
                because = self._because(probe) if "because" in probe.data else shared_because
                if split == "public" and passage_id.startswith(PRIVATE_PREFIX):
                    raise datum.fail(f"public: '{passage_id}' is in a private document")
                if split == "private" and not passage_id.startswith(PRIVATE_PREFIX):
                    raise datum.fail(
                        f"private: '{passage_id}' is public; a private question needs a "
                        f"passage in a {PRIVATE_PREFIX}*.md document, which no public task needs"
                    )
                text = self._passage(datum, passage_id)
                question = probe.get("question", str)
                phrase = probe.get("must_include", str)
                if not claims.phrase_in_passage(phrase, text):
                    raise datum.fail(
                        f"{split}.must_include '{phrase}' is not in passage '{passage_id}'",
                        "GEN_PHRASE_NOT_IN_PASSAGE",
                    )
                if phrase.casefold() in question.casefold():
                    raise datum.fail(f"{split}: the question already contains its answer")
                task = self._task(
                    family="grounded-qa",
                    split=split,
                    slug=datum.id,
                    language="en",
                    messages=[{"role": "user", "content": question}],
                    tools=copy.deepcopy(search),
                    corpus=self.corpus(split),
                    expectations=[
                        {"type": "contains", "value": phrase},
                        {"type": "citations", "required": [passage_id]},
                    ],
                    because=because,
                    tags=["grounded", passage_id.split("#", 1)[0].removesuffix(".md")],
                )
                out.append(Generated(task, datum))
        for datum in load_list(self.data_dir / "unanswerable.yaml", "unanswerable"):
            because = self._because(datum)
            self._passage(datum, datum.get("near", str))
            for split in SPLITS:
                probe = datum.child(split)
                question = probe.get("question", str)
                fabricated = probe.get("fabricated", list)
                if not fabricated or not all(isinstance(f, str) and f for f in fabricated):
                    raise datum.fail(f"{split}.fabricated must list the guesses as text")
                expectations: list[dict[str, Any]] = [
                    {"type": "answerable", "answerable": False},
                    {
                        "type": "citations",
                        "required": [],
                        "min_citations": 0,
                        "note": "nothing answers this; citing an unretrieved passage fails",
                    },
                ]
                expectations += [
                    {"type": "not_contains", "value": guess, "note": "a fabricated answer"}
                    for guess in fabricated
                ]
                task = self._task(
                    family="grounded-qa",
                    split=split,
                    slug=datum.id,
                    language="en",
                    messages=[{"role": "user", "content": question}],
                    tools=copy.deepcopy(search),
                    corpus=self.corpus(split),
                    expectations=expectations,
                    because=because,
                    tags=["grounded", "unanswerable"],
                )
                out.append(Generated(task, datum))
        return out

    def tool_trajectory(self) -> list[Generated]:
        out: list[Generated] = []
        path = self.data_dir / "tool_tasks.yaml"
        for datum in load_list(path, "tool_tasks"):
            because = self._because(datum)
            world = self._world(datum)
            for split in SPLITS:
                block = datum.child(split)
                expectations = copy.deepcopy(block.get("expectations", list))
                tools = self._tools(world, with_search=False)
                self._check_tools(datum, expectations, tools)
                task = self._task(
                    family="tool-trajectory",
                    split=split,
                    slug=datum.id,
                    language=str(world.data.get("language", "en")),
                    messages=[{"role": "user", "content": block.get("message", str)}],
                    tools=tools,
                    state=copy.deepcopy(world.data["state"]),
                    expectations=expectations,
                    because=because,
                    tags=["tools", world.id],
                )
                out.append(Generated(task, datum))
        group = load_mapping(path, "register_group")
        because = self._because(group)
        world = self._world(group)
        for variant in load_list(path, "register_group", "variants"):
            # Each register carries its own job (plan, values, because): one job reworded
            # eight times would be one task counted eight times (``bench task lint``).
            register = variant.get("register", str)
            split = variant.get("split", str)
            if split not in SPLITS:
                raise variant.fail(f"split must be public or private, not '{split}'")
            tools = self._tools(world, with_search=False)
            expectations = copy.deepcopy(variant.get("expectations", list))
            self._check_tools(variant, expectations, tools)
            job = variant.get("job", str)
            task = self._task(
                family="tool-trajectory",
                split=split,
                slug=f"{group.id}-{job}-{register}",
                language=group.get("language", str),
                messages=[{"role": "user", "content": variant.get("message", str)}],
                tools=tools,
                state=copy.deepcopy(world.data["state"]),
                expectations=expectations,
                because=f"{self._because(variant)} {because} (register: {register})",
                tags=["tools", world.id, "register-group", f"register-{register}"],
            )
            out.append(Generated(task, variant))
        return out

    def extraction(self) -> list[Generated]:
        out: list[Generated] = []
        for datum in load_list(self.data_dir / "invoices.yaml", "invoices"):
            because = self._because(datum)
            split = datum.get("split", str)
            if split not in SPLITS:
                raise datum.fail(f"split must be public or private, not '{split}'")
            language = datum.get("language", str, "en")
            text = datum.get("text", str)
            fields = datum.get("fields", dict)
            if sorted(fields) != sorted(INVOICE_SCHEMA["required"]):
                raise datum.fail("fields must be exactly: " + ", ".join(INVOICE_SCHEMA["required"]))
            for name, value in fields.items():
                if not claims.value_in_document(value, text):
                    raise datum.fail(
                        f"field {name} = {value!r} does not appear in the invoice text",
                        "GEN_VALUE_NOT_IN_DOCUMENT",
                    )
            tags = ["extraction", "invoice"]
            if fields["invoice_number"] is None:
                tags.append("no-invoice-number")
            if isinstance(fields["total"], int | float) and fields["total"] < 0:
                tags.append("credit-note")
            task = self._task(
                family="structured-extraction",
                split=split,
                slug=datum.id.removeprefix("inv-"),
                language=language,
                messages=[
                    {"role": "user", "content": EXTRACTION_PROMPT[language] + text.rstrip("\n")}
                ],
                expectations=[
                    {"type": "json", "kind": "object"},
                    {"type": "schema", "schema": copy.deepcopy(INVOICE_SCHEMA)},
                    {"type": "fields", "fields": dict(fields)},
                ],
                because=because,
                tags=tags,
            )
            out.append(Generated(task, datum))
        return out

    def multi_turn(self) -> list[Generated]:
        out: list[Generated] = []
        for datum in load_list(self.data_dir / "conversations.yaml", "conversations"):
            because = self._because(datum)
            split = datum.get("split", str)
            if split not in SPLITS:
                raise datum.fail(f"split must be public or private, not '{split}'")
            world = self._world(datum)
            with_search = bool(datum.get("corpus", bool, False))
            tools = self._tools(world, with_search)
            messages = self._transcript(datum)
            expectations = copy.deepcopy(datum.get("expectations", list))
            self._check_tools(datum, expectations, tools)
            self._check_citations(datum, expectations)
            offered = {tool.get("name") for tool in tools}
            for applied in datum.get("applied", list, []):
                tool, args = applied.get("tool"), applied.get("args", {})
                if tool not in offered:
                    raise datum.fail(
                        f"applied call {tool} is not a tool of world '{world.id}'",
                        "GEN_TOOL_NOT_IN_WORLD",
                    )
                if not claims.call_in_transcript(str(tool), args, messages):
                    raise datum.fail(
                        f"applied call {tool}({json.dumps(args, sort_keys=True)}) is not in the "
                        "transcript",
                        "GEN_CALL_NOT_IN_TRANSCRIPT",
                    )
            state = _merge(copy.deepcopy(world.data["state"]), datum.get("state_patch", dict, {}))
            task = self._task(
                family="multi-turn-state",
                split=split,
                slug=datum.id,
                language=datum.get("language", str, str(world.data.get("language", "en"))),
                messages=messages,
                tools=tools,
                state=state,
                corpus=self.corpus(split) if with_search else None,
                expectations=expectations,
                because=because,
                tags=["state", world.id],
            )
            out.append(Generated(task, datum))
        return out

    def _transcript(self, datum: Datum) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        counter = 0
        for turn in datum.get("turns", list):
            if not isinstance(turn, dict):
                raise datum.fail("each turn is a mapping with 'user' or 'assistant'")
            if "user" in turn:
                messages.append({"role": "user", "content": str(turn["user"])})
                continue
            if "assistant" not in turn:
                raise datum.fail("each turn is a mapping with 'user' or 'assistant'")
            calls = turn.get("calls", [])
            message: dict[str, Any] = {"role": "assistant", "content": str(turn["assistant"])}
            results: list[dict[str, Any]] = []
            if calls:
                requests = []
                for call in calls:
                    counter += 1
                    call_id = f"call-{counter}"
                    requests.append(
                        {
                            "id": call_id,
                            "name": call["tool"],
                            "arguments": dict(call.get("args", {})),
                        }
                    )
                    outcome = {"error": call["error"]} if "error" in call else call.get("result")
                    results.append(
                        {
                            "role": "tool",
                            "tool_call_id": call_id,
                            "name": call["tool"],
                            "content": json.dumps(outcome, ensure_ascii=False, sort_keys=True),
                        }
                    )
                message["tool_calls"] = requests
            messages.append(message)
            messages.extend(results)
        if not messages or messages[-1]["role"] != "user":
            raise datum.fail("a conversation ends with the user turn the agent must answer")
        return messages

    def safety(self) -> list[Generated]:
        out: list[Generated] = []
        for datum in load_list(self.data_dir / "safety.yaml", "safety_pairs"):
            because = self._because(datum)
            world = self._world(datum)
            language = datum.get("language", str, "en")
            for split in SPLITS:
                block = datum.child(split)
                for side in ("refuse", "help"):
                    case = block.child(side)
                    expectations = self._safety_expectations(case, side)
                    tools = self._tools(world, with_search=False)
                    self._check_tools(datum, expectations, tools)
                    task = self._task(
                        family="refusal-and-safety",
                        split=split,
                        slug=f"{datum.id}-{side}",
                        language=language,
                        messages=[{"role": "user", "content": case.get("message", str)}],
                        tools=tools,
                        state=copy.deepcopy(world.data["state"]),
                        expectations=expectations,
                        because=f"{because} ({SIDE[side]})",
                        tags=[
                            "safety",
                            world.id,
                            "must-refuse" if side == "refuse" else "must-help",
                        ],
                    )
                    out.append(Generated(task, datum))
        return out

    @staticmethod
    def _safety_expectations(case: Datum, side: str) -> list[dict[str, Any]]:
        expectations: list[dict[str, Any]] = []
        # The refusal phrase list holds English and Turkish phrases, so every pair, in either
        # language, is checked on its words as well as on what the agent did.
        if side == "refuse":
            expectations.append({"type": "refusal", "must_refuse": True})
            expectations.append(
                {
                    "type": "trajectory",
                    "forbidden": list(case.get("forbidden", list)),
                    "safety": True,
                }
            )
            expectations.append(
                {
                    "type": "not_contains",
                    "value": case.get("secret", str),
                    "safety": True,
                    "note": "what the request was after must not reach the answer",
                }
            )
            if "state" in case.data:  # the write the request was after, named with its target
                state = dict(case.get("state", dict))
                expectations.append({"type": "state", **state, "safety": True})
        else:
            expectations.append({"type": "refusal", "must_refuse": False})
            expectations.append(
                {"type": "trajectory", "required": list(case.get("required", list))}
            )
            state = dict(case.get("state", dict))
            expectations.append({"type": "state", **state})
        return expectations

    def long_horizon(self) -> list[Generated]:
        out: list[Generated] = []
        for datum in load_list(self.data_dir / "plans.yaml", "plans"):
            because = self._because(datum)
            world = self._world(datum)
            language = datum.get("language", str, "en")
            for split in SPLITS:
                block = datum.child(split)
                steps = block.get("steps", list)
                if len(steps) < 2:
                    raise datum.fail(f"{split}: a long plan has at least two steps")
                order = [step["tool"] for step in steps]
                trajectory: dict[str, Any] = {
                    "type": "trajectory",
                    "required": list(dict.fromkeys(order)),
                }
                if block.get("forbidden", list, []):
                    trajectory["forbidden"] = list(block.data["forbidden"])
                expectations: list[dict[str, Any]] = [
                    {"type": "steps", "steps": copy.deepcopy(steps)},
                    trajectory,
                ]
                if "state" in block.data:
                    expectations.append({"type": "state", **dict(block.get("state", dict))})
                for state in block.get("states", list, []):  # more writes the plan asks for
                    expectations.append({"type": "state", **dict(state)})
                if "contains" in block.data:
                    expectations.append({"type": "contains", "value": block.get("contains", str)})
                if "regex" in block.data:
                    expectations.append({"type": "regex", "pattern": block.get("regex", str)})
                tools = self._tools(world, with_search=False)
                self._check_tools(datum, expectations, tools)
                task = self._task(
                    family="long-horizon",
                    split=split,
                    slug=datum.id,
                    language=language,
                    messages=[{"role": "user", "content": block.get("message", str)}],
                    tools=tools,
                    state=copy.deepcopy(world.data["state"]),
                    expectations=expectations,
                    because=because,
                    tags=["plan", world.id],
                )
                out.append(Generated(task, datum))
        return out

    def build(self) -> list[Generated]:
        generated = (
            self.grounded()
            + self.tool_trajectory()
            + self.extraction()
            + self.multi_turn()
            + self.safety()
            + self.long_horizon()
        )
        seen: dict[str, Datum] = {}
        for item in generated:
            task_id = item.task["id"]
            if task_id in seen:
                raise item.datum.fail(
                    f"task id '{task_id}' is generated twice (also from {seen[task_id].path.name} "
                    f"line {seen[task_id].line})",
                    "GEN_DUPLICATE_ID",
                )
            seen[task_id] = item.datum
        return generated


def _merge(base: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def build_tasks(
    passages: Mapping[str, str], data_dir: Path = DATA_DIR, public: int | None = None
) -> list[dict[str, Any]]:
    """Every task, in file order; ``public`` keeps the first N public tasks of each family
    (ids unchanged — never renumbered)."""
    tasks = [item.task for item in Builder(data_dir, passages).build()]
    if public is None:
        return tasks
    kept: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for task in tasks:
        if task["split"] == "public":
            seen[task["family"]] = seen.get(task["family"], 0) + 1
            if seen[task["family"]] > public:
                continue
        kept.append(task)
    return kept


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line strings as literal blocks, no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _file_name(family: str, split: str) -> str:
    return f"{family}.{split}.yaml"


def render_files(
    tasks: list[dict[str, Any]], corpus_files: Mapping[str, bytes]
) -> dict[str, bytes]:
    """File name -> bytes: one YAML per family and split, and the corpora manifest."""
    files: dict[str, bytes] = {}
    for family in FAMILIES:
        for split in SPLITS:
            chosen = [t for t in tasks if t["family"] == family and t["split"] == split]
            if not chosen:
                continue
            header = (
                f"# {family}, {split} split: {len(chosen)} task(s).\n"
                "# Generated by `bench task generate` from src/bench/tasks/generators/data/ —\n"
                "# do not edit by hand; edit the data and regenerate (a test diffs the two).\n"
            )
            body = yaml.dump(
                {"format_version": 1, "tasks": chosen},
                Dumper=_Dumper,
                sort_keys=False,
                allow_unicode=True,
                width=100,
                default_flow_style=False,
            )
            files[_file_name(family, split)] = (header + body).encode("utf-8")
    lines = [
        f"{hashlib.sha256(data).hexdigest()}  ../corpora/{name}\n"
        for name, data in sorted(corpus_files.items())
    ]
    files[MANIFEST] = "".join(lines).encode("utf-8")
    return files


def counts(tasks: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {family: {"public": 0, "private": 0} for family in FAMILIES}
    for task in tasks:
        table[task["family"]][task["split"]] += 1
    return table


__all__ = [
    "EXPECTED_COUNTS",
    "INVOICE_SCHEMA",
    "MANIFEST",
    "PREFIX",
    "Builder",
    "Generated",
    "build_tasks",
    "counts",
    "render_files",
]
