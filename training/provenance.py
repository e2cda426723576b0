"""What a trained model was trained on, recorded beside it so that models of different rules or code
can be told apart: the env ids with their versions, the resolved rule options, the package version and
the git commit of the source tree (None outside a git checkout, e.g. an installed wheel, even one
installed inside another project's repository).

Why the resolved options and not only the ones given: ``env_options: {}`` means "the defaults of the
version that trained it", which changes between rule versions; the resolved set does not.
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from pathlib import Path
from typing import Any


@cache
def git_commit(source: Path | None = None) -> str | None:
    """The commit of the git checkout whose tracked files hold this module (or ``source``), with
    ``+dirty`` when tracked files differ from it; None without git, outside a checkout, or when the
    file is not tracked there (once per process).

    Why "tracked": an installed copy (a wheel in a virtualenv) may sit inside some other project's
    repository; that repository's commit says nothing about this code, so it is not recorded."""
    path = (source or Path(__file__)).resolve()

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "-C", str(path.parent), *args], capture_output=True, text=True, timeout=10
        )

    try:
        if git("ls-files", "--error-unmatch", path.name).returncode != 0:
            return None  # no git, no checkout, or an untracked copy (an installed package)
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    return f"{commit}+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else commit


def view_id(game: str, role: str) -> str | None:
    """The registered Gymnasium id of ``game``'s single-agent view for ``role`` (None: none declared)."""
    from kabu_envs import registry

    for gym_id, kwargs in registry.get(game).gym_ids.items():
        if kwargs.get("role") == role:
            return gym_id
    return None


def _plain(value: Any) -> Any:
    """What ``json.dumps`` cannot write itself: a set as its sorted items (a stable record)."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def provenance(game: str, role: str, env_options: dict[str, Any]) -> dict[str, Any]:
    """The provenance record of a model trained on ``game`` as ``role`` with ``env_options``."""
    import kabu_envs
    from kabu_envs import registry

    spec = registry.get(game)
    # plain JSON: tuples as lists, sets (an option holding a set of names) as sorted lists
    resolved = json.loads(json.dumps(spec.config(**env_options).as_dict(), default=_plain))
    return {
        "env_id": spec.pettingzoo_id,
        "view_id": view_id(game, role),
        "rule_options": resolved,
        "package_version": kabu_envs.__version__,
        "git_commit": git_commit(),
    }
