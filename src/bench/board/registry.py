"""The entrant registry on the board: ``submissions/<entrant>.yaml`` gives each row its display
name and its report card the organisation, model, links, contact, license and description.

An entrant with no registry file, or with one that does not read, is a warning (``--strict``
fails the build): the row keeps the name its run gave and shows no description.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from bench.core.lookalike import SkeletonIndex, name_problem, skeleton
from bench.signing.registry import (
    REGISTRY_SUFFIX,
    EntrantRecord,
    RegistryError,
    read_entrant,
    shown_names,
)

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


def name_skeleton(name: str) -> str:
    """What a name looks like, for telling two entrants' names apart on the page
    (``lookalike.skeleton``): compatibility forms folded (NFKC: full-width and mathematical
    letters, ligatures), accents, marks and characters that draw nothing dropped, every space
    read as one and every dash as ``-``, letters of scripts drawn like Latin read as the Latin
    letter they look like (by their Unicode name, or a table for Cyrillic, Greek, Coptic,
    Armenian, Cherokee and Lisu; one that neither reads is ``lookalike.WILDCARD``, any letter),
    ``0`` as ``o``, ``1 I i l`` as one, ``rn`` as ``m``, case ignored."""
    return skeleton(name)


def _name_problem(name: str, shown_as: str) -> str | None:
    problem = name_problem(name)
    return None if problem is None else f"{shown_as} {problem}"


def name_collisions(names: Mapping[str, str]) -> list[str]:
    """A problem for each pair of entrants whose shown names look alike (``name_skeleton``):
    the board would show two entrants as one, or one under another's name; and for each shown
    name that could pass for another whatever the letters (``lookalike.name_problem``: letters
    of two scripts, or a character that draws nothing). ``names``: entrant -> the name its rows
    show."""
    seen = SkeletonIndex()
    problems: list[str] = []
    for entrant in sorted(names):
        name = names[entrant]
        problem = _name_problem(name, f"the name of entrant '{entrant}' ({name!a})")
        if problem is not None:
            problems.append(f"{problem}: rename it in submissions/ (or the run's display name)")
        skeleton_ = name_skeleton(name)
        other = seen.owner(skeleton_)
        if other is not None and other != entrant:
            problems.append(
                f"entrants '{other}' and '{entrant}' show names that look alike "
                f"({names[other]!a} and {name!a}): rename one in submissions/"
            )
        seen.add(skeleton_, entrant)
    return problems


def label_collisions(labels: Mapping[str, Iterable[str]], names: Mapping[str, str]) -> list[str]:
    """A problem for each run name that looks like (``name_skeleton``) another entrant's shown
    name, or could pass for one whatever the letters (``lookalike.name_problem``). ``labels``:
    entrant -> the display names its runs give themselves, each shown on its row (beside a
    registered name as the row's label, or as the name of an unregistered reference row);
    ``names``: entrant -> the name its rows show (``name_collisions``, which speaks for a
    label that is its entrant's shown name). A run's own name is the bundle's word, never
    reviewed: named like another entrant, the row would read as that entrant's."""
    seen = SkeletonIndex()
    for entrant in sorted(names):
        seen.add(name_skeleton(names[entrant]), entrant)
    problems: list[str] = []
    for entrant in sorted(labels):
        for label in sorted(set(labels[entrant])):
            if label != names.get(entrant):
                shown_as = f"a run of entrant '{entrant}' is named {label!a}; it"
                problem = _name_problem(label, shown_as)
                if problem is not None:
                    problems.append(f"{problem}: re-run under another display name")
            other = seen.owner(name_skeleton(label))
            if other is not None and other != entrant:
                problems.append(
                    f"a run of entrant '{entrant}' is named {label!a}; it and the name of "
                    f"entrant '{other}' ({names[other]!a}) look alike: rename the one in "
                    "submissions/, or re-run under another display name"
                )
    return problems


def field_problems(
    records: Mapping[str, EntrantRecord], models: Mapping[str, Iterable[str]]
) -> list[str]:
    """A problem for each name beside a row's that could pass for another's whatever the
    letters (``lookalike.name_problem``): a registered organisation, model or link host
    (``bench.signing.registry.shown_names``; the display name is ``name_collisions``'s), and
    the model a run names (``comparable.model``, shown in the card's settings). ``models``:
    entrant -> the models its runs name."""
    problems: list[str] = []
    for entrant in sorted(records):
        for field, name in shown_names(records[entrant]):
            if field == "display_name":
                continue
            problem = _name_problem(name, f"the {field} of entrant '{entrant}' ({name!a})")
            if problem is not None:
                problems.append(f"{problem}: change it in submissions/{entrant}{REGISTRY_SUFFIX}")
    for entrant in sorted(models):
        for model in sorted(set(models[entrant])):
            shown_as = f"a run of entrant '{entrant}' names its model {model!a}; it"
            problem = _name_problem(model, shown_as)
            if problem is not None:
                problems.append(f"{problem}: re-run under another model name")
    return problems


__all__ = [
    "attach_registry",
    "field_problems",
    "label_collisions",
    "load_registry",
    "name_collisions",
    "name_skeleton",
]
