"""The pull-request path guard: what a PR may change, decided from git's file list.

A PR changes the files of **one** entrant, and is one of two kinds (docs/SUBMISSIONS.md, "What a
pull request may change"):

* A **results PR** adds files inside exactly one new ``results/<entrant>/<run_id>/``. It may also
  add that entrant's ``submissions/<entrant>.yaml`` where the base branch has none and the
  entrant has no bundle there (see ``PR_EDITS_PUBLISHED`` below), and nothing else: it may not
  modify a registry file the base branch holds (``PR_REGISTRY_AND_RESULTS``: the entrant's
  registration wrote it, and the bundle beside the change is no sign of who asks), may not
  modify or delete anything under ``results/`` (accepted bundles are never rewritten), may not
  touch ``submissions/allowed_signers`` (a key added with the results it signs would vouch for
  itself), may not touch another entrant's files, and may not change code, workflows or tasks.
* A **registration PR** adds no bundle. It may add or modify ``submissions/<entrant>.yaml`` of
  one entrant and change only that entrant's own line(s) of ``submissions/allowed_signers``;
  whose lines changed is decided from the file at the base and at the head (the principal is
  the first field of each line that is not blank or a comment), not from git's file list. It
  has nothing to verify and goes to maintainer review (CODEOWNERS covers ``/submissions/``).
  Neither kind may change the registry file of an entrant with bundles on the base branch
  (``PR_EDITS_PUBLISHED``): not even a results PR whose bundle the entrant's key signs, since a
  signed bundle shows who made it, not who opens the pull request (anyone can copy the
  entrant's next bundle from its own open pull request and carry it with a registry file of
  their own); a maintainer makes that change.
  The ``allowed_signers`` it leaves must pass the lint ``bench verify`` applies to the whole
  file (``PR_SIGNERS_INVALID``): one bad line would stop every verification on main.

No PR deletes a ``submissions/<entrant>.yaml`` (the board's ``--strict`` build would fail on the
orphaned rows) or adds any other file under ``submissions/``. Every path component is checked
with ``bench.core.ids.identifier_problem``, the one identifier rule: an entrant directory and a
registry file's stem are ``entrant`` ids, a run directory is a ``run`` id, and every component
below it is a ``file`` name. Every path the PR adds or modifies must be a regular file in git
(mode 100644 or 100755): a symbolic link or a submodule is listed like an added file, but a
registry file that is a link is read from wherever it points. Paths in messages are shown
escaped when they are not printable ASCII, so a crafted file name cannot forge a line of the
workflow log.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from bench.core.errors import BenchError, UsageError
from bench.core.ids import IdKind, identifier_problem
from bench.signing.allowed_signers import MAX_SIGNERS_BYTES, lint_text

SIGNERS = "submissions/allowed_signers"

# Every code the guard raises, with its meaning (docs/SUBMISSIONS.md and docs/ERRORS.md).
CODES: dict[str, str] = {
    "PR_REFUSED": "the default refusal (the guard could not tell whose lines a change touches)",
    "PR_OUTSIDE_RESULTS": "a file outside results/ and submissions/ (code, workflows, tasks)",
    "PR_REWRITES_RESULTS": "a file under results/ modified or deleted, or added to an existing "
    "bundle: accepted results are never rewritten",
    "PR_BAD_PLACE": "a file added under results/ but not at results/<entrant>/<run_id>/<file> "
    "with valid identifiers, or not a regular file (a symbolic link, a submodule)",
    "PR_MULTIPLE_BUNDLES": "more than one new bundle in one PR",
    "PR_KEYS_AND_RESULTS": "submissions/allowed_signers changed in a PR that adds results",
    "PR_OTHER_ENTRANT": "a change to another entrant's files: results/<other>/, "
    "submissions/<other>.yaml, another principal's allowed_signers line, or a registration "
    "for more than one entrant",
    "PR_DELETES_SUBMISSION": "a submissions/<entrant>.yaml deleted (or made other than a "
    "regular file)",
    "PR_SUBMISSIONS_PATH": "a file under submissions/ that is neither allowed_signers nor "
    "<entrant>.yaml with a valid entrant id, or one made a symbolic link or a submodule",
    "PR_REKEYS_PUBLISHED": "a registration adding, removing or replacing a key of an entrant "
    "with bundles on the base branch: they would no longer verify (or a second holder could "
    "sign as that entrant), and nobody but the maintainers can tell the key's holder from "
    "someone else",
    "PR_EDITS_PUBLISHED": "a pull request (a registration, or a results PR: a signed bundle "
    "shows who made it, not who carries it) adding or modifying the registry file of an "
    "entrant with bundles on the base branch: it renames their rows, and only a maintainer "
    "can tell who asks",
    "PR_REGISTRY_AND_RESULTS": "a results PR modifying its entrant's registry file, one the "
    "base branch holds (the entrant's registration wrote it): a bundle signed with the "
    "entrant's key shows who made it, not who carries it, so the first pull request to land "
    "would write the file of an entrant not yet on the board; a registration changes it",
    "PR_SIGNERS_INVALID": "a registration whose allowed_signers breaks the lint (a principal "
    "twice, a key registered for two entrants, a non-ed25519 key, a missing namespace option): "
    "once merged, every bundle's verification on main would stop (SIGNERS_UNUSABLE)",
}


class GuardRefusal(BenchError):
    """The PR changes something it may not (exit 1, like an invalid bundle)."""

    exit_code = 1
    default_code = "PR_REFUSED"


# git's modes of a file a PR may add or modify: a regular file (executable or not). A symbolic
# link (120000) or a submodule (160000) is listed by ``git diff`` as an added or modified file
# like any other, but is not a file: a registry file that is a link is read from wherever it
# points (another entrant's record, /proc/self/environ of the publish job).
REGULAR_MODES = frozenset({"100644", "100755"})


@dataclass(frozen=True)
class Change:
    status: str  # git's letter: A added, M modified, D deleted, T type changed, ...
    path: str
    mode: str = "100644"  # git's mode of the path at the head ("000000" when deleted)


def shown(path: str) -> str:
    """``path`` as printed in a message: escaped unless it is plain printable ASCII."""
    if path.isascii() and path.isprintable():
        return path
    return ascii(path)


def _quoted(value: str) -> str:
    shown_value = shown(value)
    return shown_value if shown_value != value else f"'{value}'"


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], capture_output=True, check=False)


def _git_failure(result: subprocess.CompletedProcess[bytes]) -> str:
    """git's own sentence, its first line: outside a repository ``git diff`` follows it with
    its whole usage text, which would bury the one line that says what is wrong."""
    lines = [line.strip() for line in result.stderr.decode("utf-8", "replace").splitlines()]
    first = next((line for line in lines if line), f"exit status {result.returncode}")
    if any("not a git repository" in line.lower() for line in lines):
        return "not a git repository: run it inside the clone that holds the pull request's branch"
    return first


def _merge_base(base: str, head: str) -> str:
    result = _git("merge-base", base, head)
    if result.returncode != 0:
        message = _git_failure(result)
        raise UsageError(f"git merge-base {base} {head} failed: {message}")
    return result.stdout.decode("ascii").strip()


def changes_between(base: str, head: str = "HEAD") -> list[Change]:
    """``git diff --raw`` from the merge base of ``base`` to ``head``, renames off: each
    path's status and its mode at ``head`` (a link or a submodule is not a regular file).

    Paths that are not UTF-8 keep their bytes as surrogates, so the identifier check refuses
    them by name instead of the decoder failing.
    """
    result = _git("diff", "--raw", "--no-renames", "--no-abbrev", "-z", f"{base}...{head}")
    if result.returncode != 0:
        message = _git_failure(result)
        raise UsageError(f"git diff {base}...{head} failed: {message}")
    out = result.stdout.decode("utf-8", errors="surrogateescape")
    fields = out.split("\0")
    if fields and fields[-1] == "":
        fields.pop()
    changes = []
    for i in range(0, len(fields) - 1, 2):
        # ":<old mode> <new mode> <old sha> <new sha> <status>", then the path
        meta = fields[i].lstrip(":").split()
        if len(meta) != 5:
            raise UsageError(f"git diff {base}...{head}: cannot read {fields[i]!a}")
        changes.append(Change(meta[4], fields[i + 1], meta[1]))
    return changes


def file_at(rev: str, path: str) -> str:
    """The text of ``path`` at ``rev``; empty when it does not exist there."""
    result = _git("show", f"{rev}:{path}")
    if result.returncode != 0:
        return ""
    return result.stdout.decode("utf-8", errors="surrogateescape")


def _exists_at(rev: str, path: str) -> bool:
    return _git("cat-file", "-e", f"{rev}:{path}").returncode == 0


def signer_lines(text: str) -> dict[str, Counter[str]]:
    """Each principal's lines (stripped) of an ``allowed_signers`` text, read like the lint."""
    lines: dict[str, Counter[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        lines.setdefault(line.split()[0], Counter())[line] += 1
    return lines


def changed_principals(before: str, after: str) -> set[str]:
    """Principals whose lines were added, removed or changed between two texts."""
    old, new = signer_lines(before), signer_lines(after)
    return {p for p in old.keys() | new.keys() if old.get(p) != new.get(p)}


def _results_place(parts: tuple[str, ...]) -> str | None:
    """Why ``results/...`` (split in ``parts``) is not ``results/<entrant>/<run_id>/<file>``."""
    if len(parts) < 4:
        return "files go inside results/<entrant>/<run_id>/"
    checks: list[tuple[str, IdKind, str]] = [
        (parts[1], "entrant", "entrant directory"),
        (parts[2], "run", "run directory"),
    ]
    checks += [(part, "file", "file name") for part in parts[3:]]
    for value, kind, what in checks:
        problem = identifier_problem(value, kind)
        if problem is not None:
            where = "files go inside results/<entrant>/<run_id>/"
            return f"{where}: the {what} {_quoted(value)} {problem}"
    return None


def _submission_entrant(change: Change) -> str:
    """The entrant of ``submissions/<entrant>.yaml``; refuses any other path under submissions/."""
    parts = change.path.split("/")
    name = parts[-1]
    if len(parts) != 2 or not name.endswith(".yaml"):
        raise GuardRefusal(
            "under submissions/ a PR changes only allowed_signers and <entrant>.yaml",
            code="PR_SUBMISSIONS_PATH",
            path=shown(change.path),
        )
    entrant = name.removesuffix(".yaml")
    problem = identifier_problem(entrant, "entrant")
    if problem is not None:
        raise GuardRefusal(
            f"a registry file is <entrant>.yaml, and the entrant id {_quoted(entrant)} {problem}",
            code="PR_SUBMISSIONS_PATH",
            path=shown(change.path),
        )
    return entrant


def _not_a_file(change: Change, parts: tuple[str, ...]) -> None:
    """Refuses a path the PR makes a symbolic link or a submodule (git mode ``change.mode``):
    under results/ it is no bundle file, under submissions/ no record or key list."""
    if parts[:1] == ("results",):
        code, where = "PR_BAD_PLACE", "a bundle holds regular files only"
    elif parts[:1] == ("submissions",):
        code, where = "PR_SUBMISSIONS_PATH", "under submissions/ a PR adds regular files only"
    else:
        return  # outside results/ and submissions/: refused as such
    raise GuardRefusal(
        f"{where}, and this is git mode {change.mode} (a symbolic link or a submodule)",
        code=code,
        path=shown(change.path),
    )


def _other_entrant(path: str, owner: str, entrant: str, why: str) -> GuardRefusal:
    return GuardRefusal(
        f"a PR changes the files of one entrant; this one is {why} '{entrant}', and this path "
        f"belongs to entrant {_quoted(owner)}",
        code="PR_OTHER_ENTRANT",
        path=shown(path),
    )


def guard(
    changes: list[Change],
    signers: tuple[str, str] | None = None,
    published: Callable[[str], bool] | None = None,
) -> str | None:
    """The bundle directory the PR adds, or None when it adds none (a registration).

    ``signers`` is ``submissions/allowed_signers`` at the base and at the head (missing = "");
    it is read only when a registration changes that file, and without it such a PR is refused.
    ``published(entrant)``: whether the entrant has bundles at the base; a registration that
    removes or replaces such an entrant's key is refused (``PR_REKEYS_PUBLISHED``).
    """
    bundles: set[str] = set()
    submissions: list[tuple[Change, str]] = []
    signer_changes: list[Change] = []
    results_edits: list[Change] = []
    for change in changes:
        path = change.path
        parts = PurePosixPath(path).parts
        if change.status != "D" and change.mode not in REGULAR_MODES:
            _not_a_file(change, parts)
        if path == SIGNERS:
            signer_changes.append(change)
        elif parts[:1] == ("submissions",):
            submissions.append((change, _submission_entrant(change)))
        elif parts[:1] != ("results",):
            raise GuardRefusal(
                "a results PR changes only results/ (and a registration only submissions/)",
                code="PR_OUTSIDE_RESULTS",
                path=shown(path),
            )
        elif change.status != "A":
            results_edits.append(change)
        else:
            problem = _results_place(parts)
            if problem is not None:
                raise GuardRefusal(problem, code="PR_BAD_PLACE", path=shown(path))
            bundles.add(f"results/{parts[1]}/{parts[2]}")
    if len(bundles) > 1:
        raise GuardRefusal(
            f"one bundle per PR; this one adds {len(bundles)}: {', '.join(sorted(bundles))}",
            code="PR_MULTIPLE_BUNDLES",
        )
    bundle = next(iter(bundles), None)
    entrant = bundle.split("/")[1] if bundle else None
    for change in results_edits:
        directory = PurePosixPath(change.path).parts[1:2]
        if entrant is not None and directory and directory[0] != entrant:
            raise _other_entrant(change.path, directory[0], entrant, "a results PR for")
        raise GuardRefusal(
            f"accepted results are never rewritten (git status {change.status})",
            code="PR_REWRITES_RESULTS",
            path=shown(change.path),
        )
    for change, owner in submissions:
        if entrant is None:
            entrant = owner  # a registration: the first registry file names its entrant
        elif owner != entrant:
            why = "a results PR for" if bundle else "a registration of"
            raise _other_entrant(change.path, owner, entrant, why)
        if change.status not in ("A", "M"):
            raise GuardRefusal(
                f"a registry file is only added or modified, never deleted (git status "
                f"{change.status}): the board's rows need it",
                code="PR_DELETES_SUBMISSION",
                path=shown(change.path),
            )
    if bundle and signer_changes:
        raise GuardRefusal(
            "a PR may not change submissions/allowed_signers and add results together",
            code="PR_KEYS_AND_RESULTS",
            path=SIGNERS,
        )
    if signer_changes:
        _check_signers(entrant, signers, published)
    if published is not None:
        for change, owner in submissions:
            if published(owner):
                kind = "a results PR" if bundle else "a registration (no bundle)"
                raise GuardRefusal(
                    f"{kind} changes the registry file of entrant '{owner}', whose bundles are "
                    "on the base branch: it names and describes their rows, and neither git "
                    "nor a signed bundle tells their owner from someone else (a bundle shows "
                    "who made it, not who opens the pull request: anyone can carry the "
                    "entrant's bundle from its own open pull request); a maintainer changes "
                    "it, and a results PR adds its bundle alone",
                    code="PR_EDITS_PUBLISHED",
                    path=shown(change.path),
                )
    if bundle:
        _check_registry_with_results(submissions)
    return bundle


def _check_registry_with_results(submissions: list[tuple[Change, str]]) -> None:
    """A results PR modifies no registry file the base branch holds, even of an entrant not on
    the board yet. Its bundle is signed with the entrant's registered key, but a signature
    shows who made the bundle, not who opens the pull request: the bundle is public from the
    moment the entrant's own pull request opens, and a stranger who carries it, unchanged,
    beside a registry file of their own (another name, their links and contact) had a green
    check; whichever of the two pull requests landed first wrote the file. An entrant's key
    and registry file come together in its registration (a key without a registry file is an
    error: ``ENTRANT_FILE_MISSING``), so a results PR finds its entrant's file on the base
    branch; a change to it is a registration of its own, which carries no bundle to vouch
    for it and which the maintainers review (CODEOWNERS). Adding a file the base branch does
    not hold stays open (a key without a registry file, which the lint refuses)."""
    for change, owner in submissions:
        if change.status == "M":
            raise GuardRefusal(
                f"a results PR modifies the registry file of entrant '{owner}': its bundle "
                "shows who made it, not who opens the pull request (anyone can carry it from "
                "the entrant's own open pull request beside a registry file of their own), so "
                "the first pull request to land would name and describe the entrant's rows; "
                "change the registry file in a registration pull request of its own, and add "
                "the bundle alone",
                code="PR_REGISTRY_AND_RESULTS",
                path=shown(change.path),
            )


def _check_signers(
    entrant: str | None,
    signers: tuple[str, str] | None,
    published: Callable[[str], bool] | None = None,
) -> None:
    """A registration changes the allowed_signers lines of its own entrant only, changes no
    key of an entrant with bundles already published, and leaves a file that passes the lint."""
    if signers is None:
        raise GuardRefusal(
            "cannot tell whose lines of allowed_signers this PR changes (texts not given)",
            path=SIGNERS,
        )
    principals = sorted(changed_principals(*signers))
    if entrant is None and len(principals) == 1:
        entrant = principals[0]
    others = [p for p in principals if p != entrant]
    if not others:
        if entrant is not None:
            problem = identifier_problem(entrant, "entrant")
            if problem is not None:
                raise GuardRefusal(
                    f"the changed principal {_quoted(entrant)} is not an entrant id: it {problem}",
                    code="PR_OTHER_ENTRANT",
                    path=SIGNERS,
                )
            _check_rekey(entrant, signers, published)
        _check_lint(signers[1])
        return
    named = ", ".join(_quoted(p) for p in principals)
    whose = f"entrant '{entrant}'" if entrant is not None else "one entrant"
    raise GuardRefusal(
        f"a registration changes the lines of {whose} only; this one changes the lines of {named}",
        code="PR_OTHER_ENTRANT",
        path=SIGNERS,
    )


def _check_rekey(
    entrant: str, signers: tuple[str, str], published: Callable[[str], bool] | None
) -> None:
    """A key of ``entrant`` added, removed or replaced while its bundles are published: anyone may
    open a pull request that swaps an entrant's key for their own, and git's file list cannot
    tell the key's holder from someone else. Every bundle it signed would then fail verify on
    main (SIGNATURE_WRONG_KEY) and stop the publish build. A rotation is the maintainers' to
    make, with those bundles re-signed (docs/SUBMISSIONS.md, "Keys"); merging it needs their
    review in any case, and this check is red so that the review cannot miss it."""
    if published is None:
        return
    before, after = signer_lines(signers[0]), signer_lines(signers[1])
    old, new = before.get(entrant, Counter()), after.get(entrant, Counter())
    if old == new or not published(entrant):
        return
    # A key added beside the published one would let its holder sign as the entrant; one
    # added where the entrant has none left (a key revoked by the maintainers) would take
    # over its name. Either way: the maintainers', like a replacement.
    what = "removes or replaces" if old - new else "adds"
    consequence = (
        "they would no longer verify" if old - new else "the new key could sign as that entrant"
    )
    raise GuardRefusal(
        f"{what} a key of entrant '{entrant}', whose bundles are on the base branch: "
        f"{consequence}; a key rotation is made by the maintainers, with those bundles "
        're-signed (docs/SUBMISSIONS.md, "Keys")',
        code="PR_REKEYS_PUBLISHED",
        path=SIGNERS,
    )


def _check_lint(after: str) -> None:
    """The allowed_signers a registration leaves passes the lint that verify applies to the
    whole file: one bad line (a principal twice, another entrant's public key copied, an RSA
    key) would make every bundle on main unverifiable once merged (``SIGNERS_UNUSABLE``), a
    publish build stopped by a pull request whose check was green."""
    encoded = after.encode("utf-8", errors="surrogateescape")
    try:
        encoded.decode("utf-8")
    except UnicodeDecodeError:
        problem = "is not UTF-8"
    else:
        problems = lint_text(after)[1]
        if len(encoded) > MAX_SIGNERS_BYTES:
            problem = f"is larger than {MAX_SIGNERS_BYTES} bytes"
        elif problems:
            problem = f"line {problems[0].line}: {problems[0].message}"
        else:
            return
    raise GuardRefusal(
        f"{problem}; once merged, verification of every bundle on main would stop "
        "(SIGNERS_UNUSABLE): bench submissions lint",
        code="PR_SIGNERS_INVALID",
        path=SIGNERS,
    )


def guard_revisions(base: str, head: str = "HEAD") -> str | None:
    """``guard`` on a repository: the changes from the merge base of ``base`` to ``head``.

    ``allowed_signers`` is compared between the merge base and ``head``, and the bundle the PR
    adds must not already exist at the merge base (adding a file to an accepted bundle rewrites
    it).
    """
    changes = changes_between(base, head)
    fork = _merge_base(base, head)
    signers = None
    if any(change.path == SIGNERS for change in changes):
        signers = (file_at(fork, SIGNERS), file_at(head, SIGNERS))
    bundle = guard(changes, signers, lambda entrant: _exists_at(fork, f"results/{entrant}"))
    if bundle is not None and _exists_at(fork, bundle):
        raise GuardRefusal(
            "this bundle is already on the base branch: accepted results are never rewritten",
            code="PR_REWRITES_RESULTS",
            path=bundle,
        )
    return bundle


__all__ = [
    "CODES",
    "SIGNERS",
    "Change",
    "GuardRefusal",
    "changed_principals",
    "changes_between",
    "file_at",
    "guard",
    "guard_revisions",
    "shown",
    "signer_lines",
]
