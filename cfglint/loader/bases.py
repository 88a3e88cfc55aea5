"""Where a ``_base_`` entry points: a path relative to the config, or ``pkg::path``.

``pkg::`` bases are found the way MMEngine finds them (the package's ``.mim/configs``, or the
file a ``model-index.yml`` metafile names), locating the package without importing it.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from cfglint import files
from cfglint.codes import MISSING_BASE
from cfglint.loader.problems import LoadError
from cfglint.session import per_session
from cfglint.types import Span

# MMEngine's scope -> distribution table (``mmengine.config.utils.MODULE2PACKAGE``).
SCOPE_PACKAGES = {
    "mmcls": "mmcls",
    "mmdet": "mmdet",
    "mmdet3d": "mmdet3d",
    "mmseg": "mmsegmentation",
    "mmaction": "mmaction2",
    "mmtrack": "mmtrack",
    "mmpose": "mmpose",
    "mmedit": "mmedit",
    "mmocr": "mmocr",
    "mmgen": "mmgen",
    "mmfewshot": "mmfewshot",
    "mmrazor": "mmrazor",
    "mmflow": "mmflow",
    "mmhuman3d": "mmhuman3d",
    "mmrotate": "mmrotate",
    "mmselfsup": "mmselfsup",
    "mmyolo": "mmyolo",
    "mmpretrain": "mmpretrain",
    "mmagic": "mmagic",
}


def resolve_base(entry: str, config: Path, span: Span) -> tuple[Path, str | None]:
    """The base file's absolute path and its scope (the package name for ``pkg::`` bases)."""
    if "::" not in entry:
        return _relative_base(os.path.dirname(config), entry), None
    scope = entry.partition("::")[0]
    if re.match(r"\w*::\w*/\w*", entry) is None or entry.count("::") > 1:
        raise LoadError(
            MISSING_BASE, f"`{entry}`: a package base must look like `pkg::dir/file.py`", span
        )
    package = SCOPE_PACKAGES.get(scope)
    if package is None:
        raise LoadError(
            MISSING_BASE, f"`{entry}`: MMEngine does not load configs of `{scope}`", span
        )
    package_dir = installed_package_dir(package)
    if package_dir is None:
        raise LoadError(
            MISSING_BASE,
            f"`{entry}`: package `{package}` is not installed (pip install {package})",
            span,
        )
    relative = entry.split("::")[1]
    named = _metafile_configs(package_dir).get(relative.split(".")[0])
    target = package_dir / named if named else package_dir / ".mim" / "configs" / relative
    if not os.path.isfile(target):
        raise LoadError(MISSING_BASE, f"`{entry}`: {target} does not exist", span)
    return Path(os.path.abspath(target)), scope


@per_session
def base_exists(path: Path) -> bool:
    """Whether a `_base_` entry names something (a broken symlink too: reading it says why);
    asked by every file naming the base, answered once per command."""
    return os.path.lexists(path)


@per_session
def _relative_base(folder: str, entry: str) -> Path:
    # Thousands of configs name the same few bases from the same folders.
    return Path(os.path.abspath(os.path.join(folder, entry)))


@per_session
def installed_package_dir(package: str) -> Path | None:
    """The package's folder, from its distribution metadata or the import path; never imported."""
    # Imported here: it costs a tenth of a pre-commit run, and only `pkg::` bases need it.
    from importlib import metadata

    try:
        distribution = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        distribution = None
    if distribution is not None:
        top_level = (distribution.read_text("top_level.txt") or "").split()
        module = top_level[0] if top_level else package
        located = Path(str(distribution.locate_file(module)))
        if files.is_dir(located):
            return located
    spec = importlib.util.find_spec(package) if "." not in package else None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


_IMPORT_LINE = re.compile(r"^\s*-\s*['\"]?([^'\"\s#]+)", re.MULTILINE)
_CONFIG_LINE = re.compile(r"^[\s-]*Config:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)


@per_session
def _metafile_configs(package_dir: Path) -> dict[str, str]:
    """Config name -> path (relative to the package) from the package's ``.mim`` metafiles.

    The metafiles are scanned for their ``Config:`` entries rather than parsed as YAML: a full
    parse of a package's ~500 metafiles costs seconds, and only these scalar lines matter.
    """
    index = package_dir / ".mim" / "model-index.yml"
    configs: dict[str, str] = {}
    try:
        imports = _IMPORT_LINE.findall(files.read_text_capped(index))
        for meta in imports:
            text = files.read_text_capped(package_dir / ".mim" / meta)
            for config in _CONFIG_LINE.findall(text):
                # MMEngine keys by the name with its extension but looks up without one.
                configs.setdefault(config.partition("/")[-1], config)
    except (OSError, UnicodeDecodeError):
        return configs
    return configs
