"""Does a file found while walking a folder look like an MMEngine config?

Without an `include` in the settings, a folder walk meets ordinary Python modules (a package's
code, a training script) and data files (OpenMMLab's `metafile.yml`). Checked as configs they
fail in ways that are noise. A config is recognised by what MMEngine configs are made of:
module-level assignments of the keys the Runner reads (or a `_base_`), and no function or class
definitions, which no config needs. YAML and JSON configs are mappings with such keys at the
top. A file named on the command line is always checked: this only filters what a walk finds.
The test is textual, so that it costs a fraction of parsing the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from cfglint import files
from cfglint.loader.source import CONFIG_SUFFIXES

# Top-level keys MMEngine's Runner, or OpenMMLab's configs, use (and `_base_`).
CONFIG_KEYS = (
    "_base_",
    "model",
    "env_cfg",
    "train_cfg",
    "val_cfg",
    "test_cfg",
    "train_dataloader",
    "val_dataloader",
    "test_dataloader",
    "val_evaluator",
    "test_evaluator",
    "optim_wrapper",
    "param_scheduler",
    "default_hooks",
    "custom_hooks",
    "default_scope",
    "log_processor",
    "log_level",
    "launcher",
    "model_wrapper_cfg",
    "runner_type",
    "strategy",
    "work_dir",
    "load_from",
    "resume",
    "randomness",
    "data_preprocessor",
    "visualizer",
    "vis_backends",
    "auto_scale_lr",
    "dataset_type",
    "data_root",
    "train_pipeline",
    "test_pipeline",
    "custom_imports",
    "find_unused_parameters",
    "cudnn_benchmark",
    "dist_params",
    "tta_model",
    "tta_pipeline",
)
_KEYS = "|".join(CONFIG_KEYS)
# Each pattern is matched at the start of the text and searched after a newline: a search
# that begins with a literal jumps from one newline to the next, where `^` under MULTILINE is
# tried at every character (the walk of a tree sniffs every file in it).
_PY_ASSIGNMENT = rf"(?:{_KEYS})\s*(?::[^=\n]*)?=(?!=)"
_PY_LAZY = r"with\s+read_base\s*\(\s*\)\s*:"
_PY_CODE = r"(?:async\s+def|def|class)\s|if\s+__name__\s*=="
_YAML_KEY = rf"['\"]?(?:{_KEYS})['\"]?\s*:"

PY_SUFFIX = ".py"
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIX = ".json"
__all__ = ["CONFIG_SUFFIXES", "looks_like_config"]


class _LineStart:
    """A pattern anchored at the start of a line, `^` under re.MULTILINE, found faster;
    compiled when first needed (a run that walks no folder sniffs nothing)."""

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._compiled: tuple[re.Pattern[str], re.Pattern[str]] | None = None

    def search(self, text: str) -> bool:
        if self._compiled is None:
            pattern = self._pattern
            self._compiled = (re.compile(pattern), re.compile(rf"\n(?:{pattern})"))
        at_start, after_newline = self._compiled
        return bool(at_start.match(text) or after_newline.search(text))


_PY_ASSIGNMENT_LINE = _LineStart(_PY_ASSIGNMENT)
_PY_LAZY_LINE = _LineStart(_PY_LAZY)
_PY_CODE_LINE = _LineStart(_PY_CODE)
_YAML_KEY_LINE = _LineStart(_YAML_KEY)


def looks_like_config(path: Path) -> bool:
    """Whether a file found in a folder walk is checked as a config. A file that cannot be
    read is (its problem is reported where the check reads it)."""
    suffix = path.suffix.lower()
    try:
        text = files.read_text_capped(path, errors="replace")
    except OSError:
        return True
    if suffix == PY_SUFFIX:
        if _PY_CODE_LINE.search(text):
            return False
        return _PY_ASSIGNMENT_LINE.search(text) or _PY_LAZY_LINE.search(text)
    if suffix in YAML_SUFFIXES:
        return _YAML_KEY_LINE.search(text)
    if suffix == JSON_SUFFIX:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and any(key in data for key in CONFIG_KEYS)
    return False
