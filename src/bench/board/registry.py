"""The entrant registry on the board: ``submissions/<entrant>.yaml`` gives each row its display
name and its report card the organisation, model, links, contact, license and description.

An entrant with no registry file, or with one that does not read, is a warning (``--strict``
fails the build): the row keeps the name its run gave and shows no description.
"""

from __future__ import annotations

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


__all__ = ["attach_registry", "load_registry"]
