"""CL9xx: configs cfglint could not resolve statically. The loader reports these."""

from __future__ import annotations

from cfglint.codes import CODES
from cfglint.rules.base import Example, Rule

_NO_FIX = "No automatic fix: correct the file, or the `_base_` it names."


def _loader_rule(
    code: str,
    name: str,
    summary: str,
    what: str,
    why: str,
    valid: tuple[Example, ...],
    invalid: tuple[Example, ...],
    fix_doc: str = _NO_FIX,
) -> Rule:
    return Rule(code, name, summary, what, why, fix_doc, valid, invalid, None)


_RESOLVE_WHY = (
    "cfglint checks the values MMEngine will see. A config it cannot resolve is not checked, "
    "and `Config.fromfile` in the training job would fail on it too."
)

RULES = (
    _loader_rule(
        "CL901",
        "syntax-error",
        "config has a syntax error",
        "The config (or one of its bases) is not valid Python, YAML or JSON.",
        _RESOLVE_WHY,
        (Example("cpu", "model = dict(type='ToyClassifier')\n"),),
        (
            Example(
                "cpu",
                "model = dict(type='ToyClassifier'\n",
                message="syntax error: '(' was never closed",
                location="config.py:1:13",
                instead="model = dict(type='ToyClassifier')\n",
            ),
        ),
    ),
    _loader_rule(
        "CL902",
        "unreadable-config",
        "config file cannot be read",
        "The file is missing, not UTF-8, a directory, a FIFO, socket or device (never "
        "opened: it could block or never end), larger than 128 KB, in a folder cfglint may "
        "not enter, a symlink loop, of a type MMEngine does not load (`.py`, `.yaml`, "
        "`.yml`, `.json`), uses `from x import *` (the names it binds cannot be listed "
        "without importing), or is a YAML/JSON `_base_` that is empty or not a mapping; or "
        "a folder given or found cannot be listed (its configs are not checked). The run "
        "goes on with the other files. A data file checked by itself is CL907 instead; a "
        "file cfglint itself fails on is an internal error, not a finding.",
        _RESOLVE_WHY,
        (Example("cpu", "# 中文注释\nmodel = dict(type='ToyClassifier')\n"),),
        (),
    ),
    _loader_rule(
        "CL903",
        "missing-base",
        "`_base_` file not found",
        "A `_base_` entry names a file that does not exist, or a `pkg::path` base of a "
        "package that is not installed; in a lazy-import config, a `with read_base():` import "
        "of a base module whose file does not exist (`from .._base_.x import *`: "
        "`../_base_/x.py`; `from mmdet.configs.x import *`: `configs/x.py` in the installed "
        "`mmdet`).",
        _RESOLVE_WHY,
        (Example("cpu", "_base_ = []\nmodel = dict(type='ToyClassifier')\n"),),
        (
            Example(
                "cpu",
                "_base_ = ['./does_not_exist.py']\n",
                message="`_base_` file not found: ./does_not_exist.py (does_not_exist.py)",
                location="config.py:1:10",
            ),
        ),
    ),
    _loader_rule(
        "CL904",
        "cyclic-base",
        "`_base_` files include each other",
        "Following `_base_` from the config comes back to a file already on the path.",
        _RESOLVE_WHY,
        (),
        (),
    ),
    _loader_rule(
        "CL905",
        "mmengine-config-error",
        "MMEngine would refuse this config",
        "An error MMEngine's own loader raises: a key defined in two bases, a dict replaced by "
        "a non-dict without `_delete_=True`, a `{{$ENV:NAME}}` placeholder without a default "
        "for an unset variable, a `{{_base_.x}}` reference to a key the bases do not have, a "
        "`with` statement other than `with read_base():`, or a lazy-import config used as the "
        "`_base_` of a plain one; in a lazy-import config, `_base_ = ...` before "
        "`with read_base():`, a statement other than `from M import ...` inside it, a name the "
        "base module does not define, `from x import *` of a module that is not a base, two "
        "modules on one `import` line, or a call of an imported class (MMEngine's LazyObject "
        "cannot be called while the config is read).",
        _RESOLVE_WHY,
        (),
        (
            Example(
                "cpu",
                "x = {{_base_.nothing}}\n",
                message=(
                    "`{{_base_.nothing}}`: the bases do not define `nothing` (once "
                    "`config.py` has run)"
                ),
                location="config.py:1:5",
            ),
        ),
    ),
    _loader_rule(
        "CL906",
        "unknown-value",
        "a value a rule needs cannot be evaluated statically",
        "A rule needs a key whose value comes from code cfglint does not run: a call into a "
        "module, an environment lookup, attribute access on an import. cfglint never executes "
        "config code outside `cfglint dryrun` and never guesses. The message names the rule "
        "that needs the value.\n\n"
        "As a warning, CL906 also reports a `model_wrapper_cfg` whose `type` is a wrapper "
        "MMEngine does not register itself (`MyCustomDDP`): MMEngine decides at run time, with "
        "`issubclass`, whether it is a DDP and gets `device_ids=[LOCAL_RANK]` (CL201), and "
        "cfglint cannot tell statically. Writing `device_ids=None` in the config answers it.\n\n"
        "A CL906 belongs to the rule that needs the value: when that rule is not selected "
        "(`--select`, `--ignore`, `select`/`ignore` in the settings) there is no CL906 for it, "
        "and a noqa naming that rule on the value's line (`# cfglint: noqa: CL102`) suppresses "
        "it there, as does `# cfglint: noqa: CL906`.",
        "An unchecked key is exactly where the failures this tool exists for hide.",
        (
            Example("t20-gcu", "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"),
            Example("t20-gcu", "model_wrapper_cfg = dict(type='MyCustomDDP', device_ids=None)\n"),
        ),
        (
            Example(
                "t20-gcu",
                "import os\nmodel = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend=os.environ['BACKEND']))\n",
                message=(
                    "cannot evaluate `os.environ['BACKEND']` (`os.environ` is not "
                    "config data); CL101 needs `env_cfg.dist_cfg.backend`"
                ),
                location="config.py:3:38",
                instead=(
                    "import os\n"
                    "model = dict(type='ToyClassifier')\n"
                    "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
                ),
            ),
            Example(
                "t20-gcu",
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(type='MyCustomDDP')\n",
                message=(
                    "`MyCustomDDP` may subclass DDP and get device_ids=[LOCAL_RANK]: "
                    "write `device_ids=None` in `model_wrapper_cfg`"
                ),
                location="config.py:2:31",
                instead=(
                    "model = dict(type='ToyClassifier')\n"
                    "model_wrapper_cfg = dict(type='MyCustomDDP', device_ids=None)\n"
                ),
            ),
        ),
        fix_doc=(
            "No automatic fix: write the value as a literal. If the rule that needs it does not "
            "apply to this config, add `# cfglint: noqa: CODE` (the rule the message names) or "
            "`# cfglint: noqa: CL906` on the line the diagnostic points at, or turn the rule off "
            "with `--ignore CODE`."
        ),
    ),
    _loader_rule(
        "CL907",
        "unsupported-config",
        "not a config: skipped",
        "A **warning**, not an error: the exit code does not change. A `.yaml`/`.yml`/`.json` "
        "file checked by itself is empty, or its top level is not a mapping (a data file such "
        "as a list of class names, not a config): there are no keys to check. cfglint skips "
        "it and says so. Lazy-import configs (`with read_base():`, as under `mmdet/configs/`) "
        "are resolved and checked like any other config; code in them that MMEngine would run "
        "and cfglint does not (a class defined in the config, a call of its own function) "
        "leaves the values it reaches unknown, each saying what was not evaluated (CL906 when "
        "a rule needs one).",
        "It does not break training by itself: a data file is not a config. It is reported as "
        "skipped instead of passing silently or failing a commit over it.",
        (
            Example("cpu", "model = dict(type='ToyClassifier')\n"),
            Example(
                "cpu",
                "from mmengine.model import BaseModel\n\n"
                "model = dict(type=BaseModel)\n",
            ),
        ),
        (),
        fix_doc="Nothing to fix; exclude data files with `exclude` under `[tool.cfglint]`.",
    ),
)

# Codes reported as warnings (cfglint/codes.py): they never change the exit code.
WARNING_CODES = frozenset(code for code, entry in CODES.items() if entry.severity == "warning")
