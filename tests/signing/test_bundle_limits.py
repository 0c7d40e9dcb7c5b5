"""``bench bundle`` refuses to write a bundle that ``bench verify`` would refuse for its size
(``BUNDLE_TOO_LARGE``, naming the file), before anything is written. Before, it wrote and
signed a bundle of a run with a 17 MiB answer, and the PR's verify then failed it
(``LIMIT_SIZE``): the contributor learned it from a red check, after the upload.
"""

from __future__ import annotations

import random
import shutil
import string
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.core.errors import InputError
from bench.records import RunDir
from bench.records import bundle as layout
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.keys import write_private_key
from bench.verify import layout as verify_layout

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
ENTRANT = "mini-huge"

AGENT = '''
from pathlib import Path

from bench.core.trace import Usage
from bench.targets import ModelResponse

ANSWER = (Path(__file__).parent / "answer.txt").read_text()
CALLS = []


def huge(request):
    """Answers its first request with one long text, over the 16 MiB a line may hold in a
    bundle; every other with a short one."""
    CALLS.append(1)
    text = ANSWER if len(CALLS) == 1 else "I don't know."
    return ModelResponse(content=text, usage=Usage(prompt_tokens=1, completion_tokens=1))
'''


def _answer(size: int) -> str:
    """Words of random letters: gzip cannot shrink them past its ratio cap."""
    pick = random.Random(7).choices
    words = ("".join(pick(string.ascii_lowercase, k=8)) for _ in range(size // 9 + 1))
    return " ".join(words)[:size]


@pytest.fixture(scope="module")
def huge_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("limits")
    for part in ("tasks", "corpora"):
        shutil.copytree(MINI / part, root / part)
    (root / "answer.txt").write_text(_answer(layout.MAX_LINE_BYTES + 1024))
    (root / "huge.py").write_text(AGENT)
    (root / "target.yaml").write_text(
        f"format_version: 1\nkind: scripted\nentrant: {ENTRANT}\ndisplay_name: huge\n"
        "model: huge\ncallable: huge.py:huge\n"
    )
    key = Ed25519PrivateKey.generate()
    write_private_key(root / "key", key)
    (root / "allowed_signers").write_text(
        signer_line(ENTRANT, public_line(key.public_key())) + "\n"
    )
    run, _ = start_run(
        RunRequest(
            tasks=root / "tasks",
            target_file=root / "target.yaml",
            runs_dir=root / "runs",
            split="public",
            concurrency=1,
        )
    )
    return run.path


def test_a_run_with_a_line_over_verifys_cap_is_not_bundled(huge_run: Path) -> None:
    root = huge_run.parent.parent
    with pytest.raises(InputError) as caught:
        build_bundle(
            RunDir(huge_run),
            entrant=ENTRANT,
            key_file=root / "key",
            out_root=root / "results",
            allowed_signers=root / "allowed_signers",
        )
    error = caught.value
    assert error.code == "BUNDLE_TOO_LARGE"
    assert error.field == layout.ATTEMPTS
    assert f"over {layout.MAX_LINE_BYTES}" in str(error)
    assert "LIMIT_SIZE" in str(error)
    # nothing written: no bundle, no staging directory left beside where it would be
    out = root / "results" / ENTRANT
    assert not out.exists() or list(out.iterdir()) == []


def test_bench_bundle_and_bench_verify_read_one_set_of_limits() -> None:
    names = [name for name in dir(layout) if name.startswith(("MAX_", "GZIP_"))]
    assert len(names) == 10
    for name in names:
        assert getattr(verify_layout, name) is getattr(layout, name), name
