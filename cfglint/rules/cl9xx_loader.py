"""CL9xx: configs cfglint could not resolve statically. The loader reports these."""

from __future__ import annotations

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
        (Example("cpu", "model = dict(type='ToyClassifier'\n"),),
    ),
    _loader_rule(
        "CL902",
        "unreadable-config",
        "config file cannot be read",
        "The file is missing, not UTF-8, a directory, too large, a symlink loop, of a type "
        "MMEngine does not load (`.py`, `.yaml`, `.yml`, `.json`), or a lazy `read_base()` "
        "config, which cfglint does not resolve yet.",
        _RESOLVE_WHY,
        (Example("cpu", "# 中文注释\nmodel = dict(type='ToyClassifier')\n"),),
        (),
    ),
    _loader_rule(
        "CL903",
        "missing-base",
        "`_base_` file not found",
        "A `_base_` entry names a file that does not exist, or a `pkg::path` base of a "
        "package that is not installed.",
        _RESOLVE_WHY,
        (Example("cpu", "_base_ = []\nmodel = dict(type='ToyClassifier')\n"),),
        (Example("cpu", "_base_ = ['./does_not_exist.py']\n"),),
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
        "for an unset variable, or a `{{_base_.x}}` reference to a key the bases do not have.",
        _RESOLVE_WHY,
        (),
        (Example("cpu", "x = {{_base_.nothing}}\n"),),
    ),
    _loader_rule(
        "CL906",
        "unknown-value",
        "a value a rule needs cannot be evaluated statically",
        "A rule needs a key whose value comes from code cfglint does not run: a call into a "
        "module, an environment lookup, attribute access on an import. cfglint never executes "
        "config code outside `cfglint dryrun` and never guesses.",
        "An unchecked key is exactly where the failures this tool exists for hide.",
        (Example("t20-gcu", "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"),),
        (
            Example(
                "t20-gcu",
                "import os\nenv_cfg = dict(dist_cfg=dict(backend=os.environ['BACKEND']))\n",
            ),
        ),
        fix_doc=(
            "No automatic fix: write the value as a literal, or suppress with "
            "`# cfglint: noqa: CL906`."
        ),
    ),
)
