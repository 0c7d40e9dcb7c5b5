"""json, schema, fields: what counts as a JSON answer, both sides of each check, exact sentences
and exact partial credit."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bench.core.score import Verdict
from bench.scorers import (
    REGISTRY,
    AttemptScore,
    document,  # noqa: E402
)

read_json = document.read_json

FAMILY = "structured-extraction"
Check = Callable[..., Verdict]
Attempt = Callable[..., AttemptScore]


@pytest.fixture(autouse=True)
def _installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(REGISTRY, "json", document.score_json)
    monkeypatch.setitem(REGISTRY, "schema", document.score_schema)
    monkeypatch.setitem(REGISTRY, "fields", document.score_fields)
    yield


@pytest.fixture
def doc(check: Check) -> Check:
    """``doc(expectation, answer)``: the verdict of a one-expectation extraction task."""

    def run(expectation: dict[str, Any], answer: str | list[str] = "") -> Verdict:
        return check(expectation, answer=answer, family=FAMILY)

    return run


def assert_pass(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == sentence


def assert_fail(verdict: Verdict, sentence: str, credit: float = 0.0) -> None:
    assert (verdict.decided, verdict.passed) == (True, False)
    assert verdict.credit == credit
    assert verdict.sentence == sentence


def assert_undecided(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (False, False, 0.0)
    assert verdict.sentence == sentence


PROSE = (
    "I think the rollout was stopped because of the prompt change that went out on Tuesday night."
)
NOT_JSON = (
    "the answer is not JSON: "
    "I think the rollout was stopped because of the prompt change that went out on …"
)


# --- what counts as a JSON answer ----------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        '{"a": 1}',
        '  \n {"a": 1} \n\t',
        '```json\n{"a": 1}\n```',
        '```JSON\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        '\n  ```json  \n{\n  "a": 1\n}\n  ```  \n',
        '```json\r\n{"a": 1}\r\n```',
    ],
)
def test_whitespace_and_one_fenced_block_are_accepted(answer: str) -> None:
    reading = read_json(answer)
    assert (reading.ok, reading.value) == (True, {"a": 1})
    assert reading.fenced == ("```" in answer)


@pytest.mark.parametrize(
    "answer",
    [
        'Here it is:\n```json\n{"a": 1}\n```',
        '```json\n{"a": 1}\n```\nHope that helps!',
        '```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```',
        '```python\n{"a": 1}\n```',
        '```json {"a": 1}```',
        'The result is {"a": 1}.',
        '{"a": 1} {"b": 2}',
        "{'a': 1}",
        '{"a": 1,}',
        "",
        "   ",
    ],
)
def test_nothing_else_is_unwrapped(answer: str) -> None:
    assert read_json(answer).ok is False


@pytest.mark.parametrize("answer", ["NaN", "[Infinity]", '{"total": -Infinity}'])
def test_python_only_constants_are_not_json(answer: str) -> None:
    assert read_json(answer).ok is False


def test_a_repeated_key_keeps_its_last_value() -> None:
    assert read_json('{"total": 70, "total": 77.5}').value == {"total": 77.5}


def test_a_document_nested_too_deeply_is_refused_without_raising() -> None:
    deep = "[" * 65 + "]" * 65
    assert read_json("[" * 64 + "]" * 64).ok
    assert read_json(deep) == document.Reading(ok=False, problem="nested deeper than 64 levels")
    unclosed = read_json("[" * 100_000)
    assert (unclosed.ok, unclosed.problem) == (False, "nested deeper than 64 levels")


# --- json ----------------------------------------------------------------------------------


def test_json_object_passes(doc: Check) -> None:
    verdict = doc({"type": "json", "kind": "object"}, '{"total": 77.5}')
    assert_pass(verdict, "the answer is a JSON object")
    assert verdict.type == "json"


def test_json_array_passes_in_a_fence(doc: Check) -> None:
    verdict = doc({"type": "json", "kind": "array"}, "```json\n[1, 2]\n```")
    assert_pass(verdict, "the answer is a JSON array, in a fenced block")


@pytest.mark.parametrize(
    ("answer", "sentence"),
    [
        ('{"a": 1}', "the answer is JSON (an object)"),
        ("[]", "the answer is JSON (an array)"),
        ('"yes"', "the answer is JSON (a string)"),
        ("77.50", "the answer is JSON (a number)"),
        ("true", "the answer is JSON (a boolean)"),
        ("null", "the answer is JSON (a null)"),
    ],
)
def test_json_any_kind(doc: Check, answer: str, sentence: str) -> None:
    assert_pass(doc({"type": "json"}, answer), sentence)


def test_json_fails_on_prose(doc: Check) -> None:
    assert_fail(doc({"type": "json"}, PROSE), NOT_JSON)


def test_json_fails_on_an_empty_answer_and_on_no_answer(doc: Check) -> None:
    assert_fail(doc({"type": "json"}, "  \n"), "the answer is not JSON: (empty answer)")
    assert_fail(doc({"type": "json"}), "the answer is not JSON: (empty answer)")


def test_json_fails_on_a_fence_inside_prose(doc: Check) -> None:
    verdict = doc({"type": "json"}, 'Here it is:\n```json\n{"a": 1}\n```')
    assert_fail(verdict, 'the answer is not JSON: Here it is: ```json {"a": 1} ```')


def test_json_of_the_wrong_kind(doc: Check) -> None:
    assert_fail(
        doc({"type": "json", "kind": "object"}, "[1, 2]"),
        "the answer is JSON but not an object: [1, 2]",
    )
    assert_fail(
        doc({"type": "json", "kind": "array"}, '{"lines": []}'),
        'the answer is JSON but not an array: {"lines": []}',
    )


def test_json_too_deep_says_why(doc: Check) -> None:
    verdict = doc({"type": "json"}, "[" * 70 + "]" * 70)
    assert_fail(
        verdict,
        "the answer is not JSON (nested deeper than 64 levels): " + "[" * 70 + "]" * 10 + "…",
    )


def test_json_reads_only_the_last_answer(doc: Check) -> None:
    assert_fail(doc({"type": "json"}, ["{}", "Done."]), "the answer is not JSON: Done.")


# --- schema --------------------------------------------------------------------------------

INVOICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lines": {"type": "array", "items": {"type": "object"}},
        "total": {"type": "number"},
    },
    "required": ["lines", "total"],
}
INVOICE = {"type": "schema", "schema": INVOICE_SCHEMA}


def test_schema_passes(doc: Check) -> None:
    verdict = doc(INVOICE, '{"lines": [{"sku": "A"}], "total": 77.5}')
    assert_pass(verdict, "the answer matches the schema")
    assert verdict.type == "schema"


def test_schema_passes_in_a_fence(doc: Check) -> None:
    verdict = doc(INVOICE, '```json\n{"lines": [], "total": 0}\n```')
    assert_pass(verdict, "the answer matches the schema, in a fenced block")


def test_schema_names_the_pointer_of_the_first_error_and_counts_the_rest(doc: Check) -> None:
    verdict = doc(INVOICE, '{"lines": [1, 2], "total": 3}')
    assert_fail(verdict, "lines/0: 1 is not of type 'object' (+1 more)")


def test_schema_with_a_single_error_says_no_more(doc: Check) -> None:
    verdict = doc(INVOICE, '{"lines": [{}, "x"], "total": 3}')
    assert_fail(verdict, "lines/1: 'x' is not of type 'object'")


def test_schema_errors_sort_array_indices_by_number(doc: Check) -> None:
    lines = ["{}"] * 11
    lines[2] = lines[10] = "5"
    verdict = doc(INVOICE, '{"lines": [' + ", ".join(lines) + '], "total": 3}')
    assert_fail(verdict, "lines/2: 5 is not of type 'object' (+1 more)")


def test_schema_errors_at_the_root_come_first(doc: Check) -> None:
    verdict = doc(INVOICE, '{"lines": [1]}')
    assert_fail(verdict, "(root): 'total' is a required property (+1 more)")


def test_schema_errors_at_one_place_sort_by_message(doc: Check) -> None:
    verdict = doc({"type": "schema", "schema": {"type": "string", "enum": ["a"]}}, "1")
    assert_fail(verdict, "(root): 1 is not of type 'string' (+1 more)")


def test_schema_pointer_escapes_slash_and_tilde(doc: Check) -> None:
    schema = {"type": "object", "properties": {"a/b~c": {"type": "string"}}}
    verdict = doc({"type": "schema", "schema": schema}, '{"a/b~c": 1}')
    assert_fail(verdict, "a~1b~0c: 1 is not of type 'string'")


def test_schema_does_not_assert_format(doc: Check) -> None:
    schema = {"type": "string", "format": "email"}
    assert_pass(
        doc({"type": "schema", "schema": schema}, '"not an email"'), "the answer matches the schema"
    )


def test_schema_on_an_answer_that_is_not_json_gives_the_json_sentence(doc: Check) -> None:
    assert_fail(doc(INVOICE, PROSE), NOT_JSON)


def test_an_invalid_schema_is_refused_at_validation_and_undecided_if_it_slips_by() -> None:
    from pydantic import ValidationError

    from bench.core.trace import Trace
    from bench.scorers import ScoringContext
    from bench.tasks.expectations import Schema
    from bench.tasks.model import Task

    with pytest.raises(ValidationError, match="not a valid JSON Schema"):
        Schema.model_validate({"type": "schema", "schema": {"type": "nonsense"}})
    unchecked = Schema.model_construct(json_schema={"type": "nonsense"})
    task = Task.model_validate(
        {
            "id": "ext-x",
            "family": FAMILY,
            "split": "public",
            "input": [{"role": "user", "content": "extract"}],
            "expectations": [{"type": "json"}],
            "because": "a schema that slipped past validation",
        }
    )
    context = ScoringContext(task=task, trace=Trace(answers=["1"]), known_passages=frozenset())
    verdict = document.score_schema(unchecked, context)
    assert_undecided(
        verdict,
        "the task's schema is not a valid JSON Schema: "
        "'nonsense' is not valid under any of the given schemas",
    )


def test_a_schema_whose_ref_does_not_resolve_is_undecided(doc: Check) -> None:
    verdict = doc({"type": "schema", "schema": {"$ref": "https://example.com/s.json"}}, "1")
    assert_undecided(
        verdict, "the task's schema cannot be applied: Unresolvable: https://example.com/s.json"
    )


def test_a_long_schema_message_is_truncated() -> None:
    from bench.scorers.base import QUOTE_LIMIT

    errors = document.schema_errors({"type": "string"}, list(range(60)))
    assert len(errors) == 1
    assert len(errors[0].message) > QUOTE_LIMIT


def test_schema_message_truncation_in_the_sentence(doc: Check) -> None:
    verdict = doc({"type": "schema", "schema": {"type": "string"}}, str(list(range(60))))
    assert verdict.sentence.startswith("(root): [0, 1, 2, 3,")
    assert verdict.sentence.endswith(" …")
    assert len(verdict.sentence) < 100


# --- fields --------------------------------------------------------------------------------

INVOICE_FIELDS: dict[str, Any] = {
    "invoice_number": "INV-1041",
    "total": 77.5,
    "currency": "EUR",
    "issued": "2026-08-14",
    "seller": "Acme GmbH",
    "refunded": True,
}


def fields(values: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "fields", "fields": values, **extra}


def test_fields_all_match(doc: Check) -> None:
    answer = (
        '{"invoice_number": "INV-1041", "total": 77.5, "currency": "EUR", '
        '"issued": "2026-08-14", "seller": "Acme GmbH", "refunded": true, "extra": 1}'
    )
    verdict = doc(fields(INVOICE_FIELDS), answer)
    assert_pass(
        verdict,
        "every field matches: invoice_number, total, currency, issued, seller, refunded",
    )
    assert verdict.type == "fields"


def test_fields_wrong_and_missing_give_a_weighted_share(doc: Check) -> None:
    answer = (
        '{"total": 70, "currency": "EUR", "issued": "2026-08-14", '
        '"seller": "Acme GmbH", "refunded": true}'
    )
    assert_fail(
        doc(fields(INVOICE_FIELDS), answer),
        "67% of the fields — wrong value for total: expected 77.5, got 70; missing: invoice_number",
        credit=4 / 6,
    )


def test_fields_normalise_only_case_and_surrounding_whitespace(doc: Check) -> None:
    expected = {"currency": "EUR", "seller": "Acme GmbH", "number": "INV-1041"}
    assert_pass(
        doc(
            fields(expected), '{"currency": " eur\\n", "seller": "ACME gmbh", "number": "inv-1041"}'
        ),
        "every field matches: currency, seller, number",
    )
    assert_fail(
        doc(fields(expected), '{"currency": "EUR", "seller": "Acme  GmbH", "number": "INV1041"}'),
        '33% of the fields — wrong value for seller: expected "Acme GmbH", got "Acme  GmbH"; '
        'wrong value for number: expected "INV-1041", got "INV1041"',
        credit=1 / 3,
    )


def test_fields_numbers_compare_by_value(doc: Check) -> None:
    expected = {"total": 77.5, "count": 1, "vat": 0.19}
    assert_pass(
        doc(fields(expected), '{"total": 77.50, "count": 1.0, "vat": 1.9e-1}'),
        "every field matches: total, count, vat",
    )


def test_fields_a_number_written_as_a_string_is_wrong(doc: Check) -> None:
    assert_fail(
        doc(fields({"total": 77.5, "qty": "1"}), '{"total": "77.5", "qty": 1}'),
        '0% of the fields — wrong value for total: expected 77.5, got "77.5"; '
        'wrong value for qty: expected "1", got 1',
    )


def test_fields_a_boolean_is_never_a_number_either_way(doc: Check) -> None:
    assert_fail(
        doc(fields({"refunded": True}), '{"refunded": 1}'),
        "0% of the fields — wrong value for refunded: expected true, got 1",
    )
    assert_fail(
        doc(fields({"refunded": 1}), '{"refunded": true}'),
        "0% of the fields — wrong value for refunded: expected 1, got true",
    )
    assert_fail(
        doc(fields({"refunded": False}), '{"refunded": 0}'),
        "0% of the fields — wrong value for refunded: expected false, got 0",
    )
    assert_fail(
        doc(fields({"count": 0}), '{"count": false}'),
        "0% of the fields — wrong value for count: expected 0, got false",
    )
    assert_pass(
        doc(fields({"refunded": True}), '{"refunded": true}'), "every field matches: refunded"
    )


def test_fields_null_only_equals_null(doc: Check) -> None:
    assert_pass(doc(fields({"po": None}), '{"po": null}'), "every field matches: po")
    assert_fail(
        doc(fields({"po": None, "vat": "DE1"}), '{"po": "", "vat": null}'),
        '0% of the fields — wrong value for po: expected null, got ""; '
        'wrong value for vat: expected "DE1", got null',
    )


def test_fields_a_missing_field_is_wrong_even_when_null_is_expected(doc: Check) -> None:
    assert_fail(
        doc(fields({"po": None, "total": 1}), '{"total": 1}'),
        "50% of the fields — missing: po",
        credit=0.5,
    )


def test_fields_nested_values_compare_recursively_and_whole(doc: Check) -> None:
    expected = {
        "buyer": {"name": "Acme", "vat_id": "DE123"},
        "lines": [{"sku": "A", "amount": 10}, {"sku": "B", "amount": 20.5}],
    }
    assert_pass(
        doc(
            fields(expected),
            '{"buyer": {"vat_id": "de123 ", "name": "ACME"}, '
            '"lines": [{"sku": "a", "amount": 10.0}, {"amount": 20.50, "sku": "B"}]}',
        ),
        "every field matches: buyer, lines",
    )
    assert_fail(
        doc(
            fields(expected),
            '{"buyer": {"name": "Acme", "vat_id": "DE123", "city": "Berlin"}, '
            '"lines": [{"sku": "B", "amount": 20.5}, {"sku": "A", "amount": 10}]}',
        ),
        '0% of the fields — wrong value for buyer.city: not expected, got "Berlin"; '
        'wrong value for lines.0.sku: expected "A", got "B"',
    )


@pytest.mark.parametrize(
    ("answer", "where"),
    [
        ('{"flags": {"refunded": 1, "items": [1, "2"]}}', "flags.refunded: expected true, got 1"),
        (
            '{"flags": {"refunded": true, "items": [true, "2"]}}',
            "flags.items.0: expected 1, got true",
        ),
        ('{"flags": {"refunded": true, "items": [1, 2]}}', 'flags.items.1: expected "2", got 2'),
        (
            '{"flags": {"refunded": true, "items": [1]}}',
            "flags.items: expected 2 items, got 1 item",
        ),
        (
            '{"flags": {"refunded": null, "items": [1, "2"]}}',
            "flags.refunded: expected true, got null",
        ),
        ('{"flags": {"items": [1, "2"]}}', "flags.refunded: expected true, got nothing"),
        (
            '{"flags": [true, [1, "2"]]}',
            'flags: expected {"refunded": true, "items": [1, "2"]}, got [true, [1, "2"]]',
        ),
    ],
)
def test_fields_nested_traps_hold_all_the_way_down(doc: Check, answer: str, where: str) -> None:
    expected = {"flags": {"refunded": True, "items": [1, "2"]}}
    assert_fail(doc(fields(expected), answer), f"0% of the fields — wrong value for {where}")


def test_fields_nested_numbers_still_compare_by_value(doc: Check) -> None:
    expected = {"flags": {"refunded": True, "items": [1, "2"]}}
    verdict = doc(fields(expected), '{"flags": {"items": [1.0, " 2 "], "refunded": true}}')
    assert_pass(verdict, "every field matches: flags")


def test_fields_dotted_paths_reach_into_objects_and_arrays(doc: Check) -> None:
    expected = {"buyer.vat_id": "DE123", "lines.1.amount": 20.5, "lines.0.sku": "A"}
    answer = '{"buyer": {"vat_id": "DE123"}, "lines": [{"sku": "A"}, {"amount": 20.5}]}'
    assert_pass(
        doc(fields(expected), answer),
        "every field matches: buyer.vat_id, lines.1.amount, lines.0.sku",
    )


def test_fields_a_literal_dotted_key_wins_over_the_path(doc: Check) -> None:
    answer = '{"buyer.vat_id": "DE123", "buyer": {"vat_id": "XX"}}'
    assert_pass(doc(fields({"buyer.vat_id": "DE123"}), answer), "every field matches: buyer.vat_id")


@pytest.mark.parametrize(
    "answer",
    [
        '{"buyer": "Acme"}',
        '{"buyer": {"name": "Acme"}}',
        '{"lines": [{"sku": "A"}]}',
        '{"lines": [{"amount": 20.5}], "buyer": {"vat_id": "DE123"}}',
    ],
)
def test_fields_a_path_that_leads_nowhere_is_missing(doc: Check, answer: str) -> None:
    verdict = doc(fields({"lines.1.amount": 20.5, "buyer.vat_id": "DE123"}), answer)
    assert not verdict.passed
    assert "missing: lines.1.amount" in verdict.sentence


def test_fields_index_segments_are_plain_decimals() -> None:
    lines = {"lines": [{"a": 1}, {"a": 2}]}
    assert document.lookup(lines, "lines.1.a") == (True, 2)
    assert document.lookup(lines, "lines.01.a") == (False, None)
    assert document.lookup(lines, "lines.-1.a") == (False, None)
    assert document.lookup(lines, "lines.2.a") == (False, None)
    assert document.lookup(lines, "lines") == (True, [{"a": 1}, {"a": 2}])
    assert document.lookup({"lines": {"1": {"a": 3}}}, "lines.1.a") == (True, 3)


def test_fields_weights_weigh_the_share(doc: Check) -> None:
    verdict = doc(
        fields({"total": 77.5, "invoice_number": "INV-1"}, weights={"total": 3}),
        '{"total": 70, "invoice_number": "INV-1"}',
    )
    assert_fail(verdict, "25% of the fields — wrong value for total: expected 77.5, got 70", 0.25)


def test_fields_percentages_never_read_all_or_nothing_wrongly(doc: Check) -> None:
    near_all = doc(fields({"a": 1, "b": 2}, weights={"a": 999}), '{"a": 1, "b": 3}')
    assert_fail(near_all, "99% of the fields — wrong value for b: expected 2, got 3", 0.999)
    near_none = doc(fields({"a": 1, "b": 2}, weights={"b": 999}), '{"a": 1, "b": 3}')
    assert_fail(near_none, "1% of the fields — wrong value for b: expected 2, got 3", 0.001)
    assert [document.percent(x) for x in (0.0, 0.125, 0.5, 2 / 3, 1.0)] == [
        "0%",
        "12%",
        "50%",
        "67%",
        "100%",
    ]


def test_fields_name_at_most_three_wrong_values(doc: Check) -> None:
    verdict = doc(
        fields({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}),
        '{"a": 0, "b": 0, "c": 0, "d": 0, "e": 0}',
    )
    assert_fail(
        verdict,
        "0% of the fields — wrong value for a: expected 1, got 0; "
        "wrong value for b: expected 2, got 0; wrong value for c: expected 3, got 0; "
        "wrong value also for d, e; missing: f",
    )


def test_fields_on_an_answer_that_is_not_an_object(doc: Check) -> None:
    assert_fail(doc(fields({"total": 1}), PROSE), NOT_JSON)
    assert_fail(
        doc(fields({"total": 1}), '[{"total": 1}]'),
        'the answer is JSON but not an object: [{"total": 1}]',
    )


def test_fields_read_a_fenced_answer(doc: Check) -> None:
    verdict = doc(fields({"total": 77.5}), '```json\n{"total": 77.50}\n```')
    assert_pass(verdict, "every field matches: total")


def test_fields_a_repeated_key_keeps_its_last_value(doc: Check) -> None:
    assert_pass(
        doc(fields({"total": 77.5}), '{"total": 70, "total": 77.5}'), "every field matches: total"
    )


@pytest.mark.parametrize(
    ("expectation", "sentence"),
    [
        (
            fields({"total": 1}, weights={"totl": 2}),
            "the task weighs field(s) it does not check: totl",
        ),
        (
            fields({"total": 1}, weights={"total": -1}),
            "the task's weight for total is -1.0, and a weight must be positive",
        ),
        (
            fields({"total": 1}, weights={"total": 0}),
            "the task's weight for total is 0.0, and a weight must be positive",
        ),
        (
            fields({"issued": datetime.date(2026, 8, 14)}),
            "the task's expected value for issued is not a JSON value (a date); "
            "quote it in the task file",
        ),
        (
            fields({"total": float("nan")}),
            "the task's expected value for total is not a JSON value (nan); "
            "quote it in the task file",
        ),
        (
            fields({"lines": [{"on": datetime.date(2026, 8, 14)}]}),
            "the task's expected value for lines is not a JSON value (a date); "
            "quote it in the task file",
        ),
    ],
)
def test_fields_a_task_that_cannot_be_scored_is_undecided(
    doc: Check, expectation: dict[str, Any], sentence: str
) -> None:
    from pydantic import ValidationError

    from bench.core.trace import Trace
    from bench.scorers import ScoringContext
    from bench.tasks.expectations import Fields
    from bench.tasks.model import Task

    # Task validation refuses these first ...
    with pytest.raises(ValidationError):
        doc(expectation, '{"total": 1}')
    # ... and the scorer still refuses to blame the agent if one slips past.
    unchecked = Fields.model_construct(
        fields=expectation["fields"],
        weights={k: float(v) for k, v in expectation.get("weights", {}).items()},
    )
    task = Task.model_validate(
        {
            "id": "ext-x",
            "family": FAMILY,
            "split": "public",
            "input": [{"role": "user", "content": "extract"}],
            "expectations": [{"type": "json"}],
            "because": "data that slipped past validation",
        }
    )
    trace = Trace(answers=['{"total": 1}'])
    context = ScoringContext(task=task, trace=trace, known_passages=frozenset())
    assert_undecided(document.score_fields(unchecked, context), sentence)


# --- in an attempt -------------------------------------------------------------------------


def test_document_checks_fold_into_the_attempt(attempt: Attempt) -> None:
    score = attempt(
        [
            {"type": "json", "kind": "object"},
            {"type": "schema", "schema": INVOICE_SCHEMA},
            fields({"total": 77.5, "invoice_number": "INV-1"}, weight=2),
        ],
        answer='{"lines": [], "total": 77.5}',
        family=FAMILY,
    )
    assert [v.passed for v in score.verdicts] == [True, True, False]
    assert [v.axis for v in score.verdicts] == ["answer", "answer", "answer"]
    # json and schema are conditions: they earn only when the goal (fields) passed
    # (0 + 0 + 2 * 0.5) / 4
    assert (score.value, score.passed) == (0.25, False)
    assert score.failures() == ("50% of the fields — missing: invoice_number",)
