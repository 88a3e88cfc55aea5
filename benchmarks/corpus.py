"""The real OpenMMLab config corpus: fetch, unpack and list it (never committed to the repo).

The configs ship inside the PyPI wheels of mmdet, mmsegmentation and mmpretrain, under
``<package>/.mim/configs``. The wheels are unzipped whole into one ``site`` folder, so that
``pkg::`` bases resolve (dist-info included) for MMEngine and cfglint alike, once that folder is
on the import path (:func:`findable_packages`, :func:`subprocess_env`). Nothing is imported.

Reused by the corpus tests of ``check`` and ``fix``; ``python benchmarks/corpus.py`` prints where
it is and how many leaf configs it holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WHEELS = ("mmdet==3.3.0", "mmsegmentation==1.2.2", "mmpretrain==1.2.0")
# MMEngine finds `pkg::` bases through `pkg_resources`, which newer environments lack.
ORACLE_TOOLS = ("setuptools<80",)
PACKAGES = ("mmdet", "mmseg", "mmpretrain")  # import names: where `.mim/configs` lives
# Lazy-import configs are not in the wheels: OpenMMLab keeps them in the packages' source trees
# (`mmdet/configs/`, `mmpretrain/configs/`), found as package modules by `read_base()` imports.
# `python benchmarks/corpus.py --lazy-from CHECKOUT TAG` copies them from a git checkout of the
# package at the wheel's tag (mmpretrain: v1.2.0, mmdet: v3.3.0) into `site/<package>/configs`.
LAZY_PACKAGES = ("mmdet", "mmpretrain")


@dataclass(frozen=True)
class CorpusInfo:
    root: Path  # the cache folder
    site: Path  # the unzipped wheels, like a site-packages folder
    tools: Path  # pkg_resources for MMEngine in subprocesses (may be empty when offline)
    config_roots: tuple[Path, ...]  # <site>/<package>/.mim/configs
    leaves: tuple[Path, ...]  # every leaf config, sorted
    lazy_leaves: tuple[Path, ...] = ()  # every leaf of <site>/<package>/configs, sorted

    def package_of(self, config: Path) -> str:
        return config.relative_to(self.site).parts[0]


def cache_dir() -> Path:
    configured = os.environ.get("CFGLINT_CORPUS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "cfglint-corpus"


def _download(root: Path) -> list[Path]:
    wheels = sorted(root.glob("*.whl"))
    if len(wheels) >= len(WHEELS):
        return wheels
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(root), *WHEELS],
        check=True,
    )
    return sorted(root.glob("*.whl"))


def ensure_corpus() -> CorpusInfo:
    """Download (once) and unzip the three wheels; list the leaf configs."""
    root = cache_dir()
    site = root / "site"
    marker = site / ".complete"
    if not marker.exists():
        site.mkdir(parents=True, exist_ok=True)
        for wheel in _download(root):
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
        marker.write_text("\n".join(WHEELS) + "\n")
    tools = _ensure_tools(root / "tools")
    config_roots = tuple(site / package / ".mim" / "configs" for package in PACKAGES)
    leaves = sorted(
        path
        for config_root in config_roots
        for path in config_root.rglob("*.py")
        if "_base_" not in path.relative_to(config_root).parts
    )
    return CorpusInfo(root, site, tools, config_roots, tuple(leaves), _lazy_leaves(site))


def _lazy_leaves(site: Path) -> tuple[Path, ...]:
    return tuple(
        sorted(
            path
            for package in LAZY_PACKAGES
            for path in (site / package / "configs").rglob("*.py")
            if "_base_" not in path.relative_to(site).parts and path.name != "__init__.py"
        )
    )


def add_lazy_configs(checkout: Path, tag: str) -> list[Path]:
    """Copy ``<package>/configs`` of a git checkout at ``tag`` into the corpus (never into
    ``.mim``): the lazy-import configs the wheels lack."""
    site = cache_dir() / "site"
    added = []
    for package in LAZY_PACKAGES:
        folder = f"{package}/configs"
        listed = subprocess.run(
            ["git", "-C", str(checkout), "ls-tree", "--name-only", tag, folder],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        if not listed.stdout.strip():
            continue
        archive = subprocess.run(
            ["git", "-C", str(checkout), "archive", tag, folder],
            capture_output=True,
            check=True,
            timeout=300,
        )
        subprocess.run(
            ["tar", "-x", "-C", str(site)], input=archive.stdout, check=True, timeout=300
        )
        added.append(site / folder)
    return added


def _ensure_tools(tools: Path) -> Path:
    if not (tools / "pkg_resources").is_dir():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(tools),
                *ORACLE_TOOLS,
            ],
            check=False,  # offline: MMEngine then fails on `pkg::` bases, and says so
        )
    return tools


@contextmanager
def findable_packages(info: CorpusInfo) -> Iterator[None]:
    """The unzipped wheels on ``sys.path`` (for ``pkg::`` bases), without importing them."""
    sys.path.insert(0, str(info.site))
    try:
        yield
    finally:
        sys.path.remove(str(info.site))


def subprocess_env(info: CorpusInfo, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment whose ``PYTHONPATH`` makes the three packages (and pkg_resources) findable."""
    env = dict(os.environ if base is None else base)
    paths = [str(info.site), str(info.tools), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    return env


if __name__ == "__main__":
    if sys.argv[1:2] == ["--lazy-from"] and len(sys.argv) == 4:
        for folder in add_lazy_configs(Path(sys.argv[2]), sys.argv[3]):
            print(f"added {folder}")
    corpus = ensure_corpus()
    print(f"{corpus.site}: {len(corpus.leaves)} leaf configs, {len(corpus.lazy_leaves)} lazy")
