"""A cached verdict (``bench board build --cache``) must not outlive a library that decides it.

The publish workflow restores the newest sealed cache whatever its age, and its libraries are
pinned in a requirements file outside the ``bench`` package: an upgrade of the library that
checks signatures (cryptography), the one that decides the manifest's canonical form (rfc8785)
or the one that reads the task files (PyYAML) changes no file ``code_digest`` hashes. Each must
change every key, so that every bundle is verified again by the new version."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata

import pytest

from bench.verify import dependencies

_REAL = metadata.version


@pytest.fixture(autouse=True)
def _fresh_digest() -> Iterator[None]:
    dependencies.code_digest.cache_clear()
    yield
    dependencies.code_digest.cache_clear()


@pytest.mark.parametrize("library", ["cryptography", "rfc8785", "PyYAML", "pydantic", "numpy"])
def test_another_version_of_a_library_a_verdict_passes_through_is_another_key(
    library: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = dependencies.code_digest()
    dependencies.code_digest.cache_clear()

    def version(name: str) -> str:
        if name.lower() == library.lower():
            return _REAL(name) + ".post999"
        return _REAL(name)

    monkeypatch.setattr(dependencies.metadata, "version", version)
    assert dependencies.code_digest() != before, f"an upgrade of {library} keeps every key"


def test_the_same_libraries_are_the_same_key() -> None:
    before = dependencies.code_digest()
    dependencies.code_digest.cache_clear()
    assert dependencies.code_digest() == before
