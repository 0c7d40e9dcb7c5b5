"""The entrant registry on the board: ``submissions/<entrant>.yaml`` gives each row its display
name and its report card the organisation, model, links, contact, license and description.

An entrant with no registry file, or with one that does not read, is a warning (``--strict``
fails the build): the row keeps the name its run gave and shows no description.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path

from bench.signing.registry import REGISTRY_SUFFIX, EntrantRecord, RegistryError, read_entrant

from .model import Board, EntrantInfo


def load_registry(
    directory: Path | None, entrants: list[str]
) -> tuple[dict[str, EntrantRecord], list[str]]:
    """The registry record of each entrant that has one, and a warning for each that has not.
    With no ``directory`` there is no registry and no warning."""
    if directory is None:
        return {}, []
    records: dict[str, EntrantRecord] = {}
    warnings: list[str] = []
    for entrant in sorted(set(entrants)):
        path = directory / f"{entrant}{REGISTRY_SUFFIX}"
        if not path.is_file():
            warnings.append(f"unknown entrant '{entrant}': no {path}")
            continue
        try:
            records[entrant] = read_entrant(path)
        except RegistryError as exc:
            warnings.append(f"entrant '{entrant}': {exc}")
    return records, warnings


def attach_registry(board: Board, records: dict[str, EntrantRecord]) -> Board:
    """``board`` with each registered entrant's name and details on its rows."""
    if not records:
        return board
    cohorts = []
    for cohort in board.cohorts:
        rows = []
        for row in cohort.entries:
            record = records.get(row.entrant)
            if record is None:
                rows.append(row)
                continue
            info = EntrantInfo(
                organisation=record.organisation,
                model=record.model,
                links=list(record.links),
                contact=record.contact,
                license=record.license,
                description=record.description,
            )
            label = row.display_name if row.display_name != record.display_name else None
            rows.append(
                row.model_copy(
                    update={
                        "display_name": record.display_name,
                        "entrant_info": info,
                        "config_label": label,
                    }
                )
            )
        cohorts.append(cohort.model_copy(update={"entries": rows}))
    return board.model_copy(update={"cohorts": cohorts})


# Letters of other scripts (and digits) drawn like Latin letters, by what they look like.
_LOOKALIKE = str.maketrans(
    {
        **dict.fromkeys("аАɑα", "a"),
        **dict.fromkeys("ВΒвЬ", "b"),
        **dict.fromkeys("сСϲℂ", "c"),
        **dict.fromkeys("ԁⅾ", "d"),
        **dict.fromkeys("еЕΕε", "e"),
        **dict.fromkeys("ϜҒ", "f"),
        **dict.fromkeys("ɡ", "g"),
        **dict.fromkeys("һНΗн", "h"),
        **dict.fromkeys("іΙιӀ", "i"),
        **dict.fromkeys("јЈ", "j"),
        **dict.fromkeys("кКΚκ", "k"),
        **dict.fromkeys("lI1|ӏǀⅼ", "l"),
        **dict.fromkeys("мМΜ", "m"),
        **dict.fromkeys("ΝпП", "n"),
        **dict.fromkeys("oоОΟο0σ", "o"),
        **dict.fromkeys("рРΡρ", "p"),
        **dict.fromkeys("ԛ", "q"),
        **dict.fromkeys("ѕЅ", "s"),
        **dict.fromkeys("тТΤτ", "t"),
        **dict.fromkeys("υ", "u"),
        **dict.fromkeys("νѵ", "v"),
        **dict.fromkeys("ԝѡ", "w"),
        **dict.fromkeys("хХΧχ", "x"),
        **dict.fromkeys("уУΥүҮγ", "y"),
        **dict.fromkeys("ΖZ", "z"),
    }
)


def name_skeleton(name: str) -> str:
    """What a name looks like, for telling two entrants' names apart on the page: compatibility
    forms folded (NFKC: full-width letters, ligatures), accents dropped, letters of other
    scripts drawn like Latin ones (and 0, 1, I, l) mapped to one, ``rn`` read as ``m``, case
    and runs of spaces ignored. Two names with one skeleton look alike to a reader."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(_LOOKALIKE).casefold().translate(_LOOKALIKE)
    text = text.replace("rn", "m").replace("vv", "w")
    return re.sub(r"\s+", " ", text).strip()


def name_collisions(names: Mapping[str, str]) -> list[str]:
    """A problem for each pair of entrants whose shown names look alike (``name_skeleton``):
    the board would show two entrants as one, or one under another's name. ``names``:
    entrant -> the name its rows show."""
    first: dict[str, str] = {}
    problems: list[str] = []
    for entrant in sorted(names):
        skeleton = name_skeleton(names[entrant])
        other = first.setdefault(skeleton, entrant)
        if other != entrant:
            problems.append(
                f"entrants '{other}' and '{entrant}' show names that look alike "
                f"({names[other]!a} and {names[entrant]!a}): rename one in submissions/"
            )
    return problems


def label_collisions(labels: Mapping[str, Iterable[str]], names: Mapping[str, str]) -> list[str]:
    """A problem for each run name that looks like (``name_skeleton``) another entrant's shown
    name. ``labels``: entrant -> the display names its runs give themselves, each shown on its
    row (beside a registered name as the row's label, or as the name of an unregistered
    reference row); ``names``: entrant -> the name its rows show (``name_collisions``). A run's
    own name is the bundle's word, never reviewed: named like another entrant, the row would
    read as that entrant's."""
    owner: dict[str, str] = {}
    for entrant in sorted(names):
        owner.setdefault(name_skeleton(names[entrant]), entrant)
    problems: list[str] = []
    for entrant in sorted(labels):
        for label in sorted(set(labels[entrant])):
            other = owner.get(name_skeleton(label))
            if other is not None and other != entrant:
                problems.append(
                    f"a run of entrant '{entrant}' is named {label!a}; it and the name of "
                    f"entrant '{other}' ({names[other]!a}) look alike: rename the one in "
                    "submissions/, or re-run under another display name"
                )
    return problems


__all__ = [
    "attach_registry",
    "label_collisions",
    "load_registry",
    "name_collisions",
    "name_skeleton",
]
