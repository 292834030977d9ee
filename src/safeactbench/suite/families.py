"""Your own scenario families: scaffold a families folder, and load the domains it declares.

A families folder holds one Python module or package per domain, each defining `DOMAIN` (a
`safeactbench.authoring.Domain`). `suite new DIR` copies the example domain (`template/`) into
`DIR/families`; `suite build --from DIR/families` loads it here and builds the suite from it.
"""

from __future__ import annotations

import hashlib
import importlib
import shutil
import sys
import traceback
import types
from pathlib import Path

from ..authoring.family import Domain

TEMPLATE_DIR = Path(__file__).resolve().parent / "template"


class FamiliesError(ValueError):
    """A families folder that cannot be loaded; the message names the file."""


def scaffold(directory: Path) -> Path:
    """Write a new suite folder: `families/` with the example domain, and a README. Returns the
    families folder. Refuses a folder that already has content."""
    if directory.exists() and any(directory.iterdir()):
        raise FamiliesError(f"{directory}: not empty; `suite new` writes a new folder")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(TEMPLATE_DIR, directory, ignore=ignore, dirs_exist_ok=True)
    return directory / "families"


def _entries(directory: Path) -> list[Path]:
    """The domain modules of a families folder: `*.py` files and packages, in name order."""
    found = [
        p
        for p in sorted(directory.iterdir())
        if not p.name.startswith(("_", "."))
        and ((p.is_file() and p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").is_file()))
    ]
    if not found:
        raise FamiliesError(f"{directory}: no domain module (a *.py file or a package defining DOMAIN)")
    return found


def load_domains(directory: Path) -> list[Domain]:
    """Import every domain module of `directory` (under a namespace of its own, so two folders with
    the same module names can be loaded in one process) and return their `DOMAIN`s."""
    directory = directory.resolve()
    if not directory.is_dir():
        raise FamiliesError(f"{directory}: not a folder")
    namespace = "safeactbench_families_" + hashlib.sha256(str(directory).encode()).hexdigest()[:10]
    for name in [m for m in sys.modules if m == namespace or m.startswith(namespace + ".")]:
        del sys.modules[name]  # rebuild from the files as they are now
    package = types.ModuleType(namespace)
    package.__path__ = [str(directory)]
    sys.modules[namespace] = package
    domains: list[Domain] = []
    for entry in _entries(directory):
        where = entry / "__init__.py" if entry.is_dir() else entry
        try:
            module = importlib.import_module(f"{namespace}.{entry.stem}")
        except Exception as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            raise FamiliesError(f"{where}: {type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})") from exc
        domain = getattr(module, "DOMAIN", None)
        if not isinstance(domain, Domain):
            raise FamiliesError(f"{where}: defines no DOMAIN (a safeactbench.authoring.Domain)")
        if domain.composition is None:  # only the packaged domains take the suite's composition table
            raise FamiliesError(f"{where}: DOMAIN declares no composition (cases per protocol)")
        domains.append(domain)
    names = [d.name for d in domains]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise FamiliesError(f"{directory}: domain {duplicated[0]!r} is declared twice")
    return domains
