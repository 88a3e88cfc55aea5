"""Shared frozen types: the small values each pipeline step hands to the next.

discover (Discovered) -> launches (Launch) -> load (ConfigNode tree with an Origin per key,
ResolvedConfig or LoadFailure; LaunchView) -> evaluate against a target -> Violation (with a
FixIntent) -> TextEdit -> report.

A step takes these values from here, not from the step before it, so the steps stay independent
of each other. Two kinds of types live elsewhere, on purpose: the rule interface
(`cfglint/rules/base.py`: Rule, Example, RuleContext, Finding, which name a Target and are the
contract between one rule module and the engine), and each package's own request and result for
the command line (`CheckRequest`, `CheckResult`, the review's plan, the dry run's job), which only
the CLI layer sees.

A warning or error that is no finding travels as a `Notice` (its kind, its line, the file and line
it is about): defined in the leaf module `cfglint/notice.py`, which the start-up path can import
without this one, and named here with the other shared types.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal, NamedTuple, TypeAlias, TypeVar

from cfglint.crash_log import Caught as Caught
from cfglint.notice import Notice as Notice
from cfglint.notice import NoticeKind as NoticeKind

_Record = TypeVar("_Record", bound=type)


def pickled_by_fields(cls: _Record) -> _Record:
    """A frozen dataclass pickled as its class and its fields' values, rebuilt through its own
    `__init__`: for the values each worker process sends back for every config (and the result
    cache stores), by the thousand. The dataclass default rebuilds through a `__setstate__` that
    looks the fields up again for every object (the corpus's outcomes for t20-gcu, 1.5 MB:
    decoded in 0.047 s this way, 0.067 s that way)."""
    declared = fields(cls)
    if any(not item.init or item.kw_only for item in declared):
        raise TypeError(f"{cls.__name__}: every field must be a positional `__init__` argument")
    names = tuple(item.name for item in declared)

    def __reduce__(self: object) -> tuple[type, tuple[object, ...]]:
        return cls, tuple([getattr(self, name) for name in names])

    cls.__reduce__ = __reduce__  # type: ignore[assignment]
    return cls


class Span(NamedTuple):
    """A region of a file. Lines are 1-based; columns are 1-based character columns.

    The end is exclusive (``end_column`` is the column just after the last character), the
    way ruff reports ``end_location``. A NamedTuple rather than a frozen dataclass: the loader
    creates one for every value of every config, and tuples are twice as fast to build.
    """

    path: Path
    line: int
    column: int
    end_line: int
    end_column: int

    def display(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class Origin(NamedTuple):
    """Where a resolved value was set, and how it reached the config being resolved.

    ``chain`` runs from the config that was asked for to the file that set the value,
    following ``_base_``; for a value the config sets itself it is ``(span.path,)``.
    """

    span: Span
    chain: tuple[Path, ...]
    # The value came from a ``{{$ENV:default}}`` placeholder: resolved to its default.
    env_dependent: bool = False

    @property
    def path(self) -> Path:
        return self.span.path


# ---------------------------------------------------------------------------
# The resolved config tree. Every node knows its origin.


@dataclass(frozen=True, slots=True)
class LazyImport:
    """A class, function or module a lazy-import config imports (MMEngine's ``LazyObject`` or
    ``LazyAttr``): never imported, known by the dotted path ``Config.to_dict()`` renders it as.

    ``path`` is that rendering (``from torch.optim import SGD``: ``torch.optim.SGD``; MMEngine
    renders ``import torch.nn as nn`` as ``torch.nn.torch.nn``); ``prefix`` is what an attribute
    of it is rendered under (``nn.ReLU``: ``torch.nn.ReLU``).
    """

    path: str
    prefix: str

    def attribute(self, name: str) -> LazyImport:
        dotted = f"{self.prefix}.{name}"
        return LazyImport(dotted, dotted)

    def __repr__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class ScalarNode:
    """None, bool, int, float, str, bytes or complex; or a LazyImport."""

    value: object
    origin: Origin


@dataclass(frozen=True, slots=True)
class SequenceNode:
    items: tuple[ConfigNode, ...]
    is_tuple: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class DictNode:
    """A dict of the resolved config. Keys are usually str; MMEngine allows any hashable."""

    entries: Mapping[object, ConfigNode]
    origin: Origin

    def get(self, key: object) -> ConfigNode | None:
        return self.entries.get(key)

    def __iter__(self) -> Iterator[object]:
        return iter(self.entries)


@dataclass(frozen=True, slots=True)
class UnknownNode:
    """A value cfglint will not evaluate statically (a call into a module, an env lookup)."""

    source: str
    reason: str
    origin: Origin


ConfigNode: TypeAlias = ScalarNode | SequenceNode | DictNode | UnknownNode


def split_key(dotted_key: str) -> tuple[str, ...]:
    return tuple(part for part in dotted_key.split(".") if part)


@dataclass(frozen=True, slots=True)
class KeyLookup:
    """Where a dotted key leads in a resolved tree."""

    node: ConfigNode | None  # at the key, or the unknown on the way to it; None: absent
    depth: int  # how many of the key's parts lead to `node`
    anchor: DictNode | None  # the deepest dict below the root that the walk looked into


_INT_KEY = re.compile(r"-?[0-9]+")


def follow_key(root: DictNode, parts: tuple[str, ...]) -> KeyLookup:
    """Follow a key's parts from the root: dict keys (a part like ``3`` also finds the int key
    3), list and tuple items by index (``pipeline.0``). An unknown value on the way stops it."""
    node: ConfigNode = root
    anchor: DictNode | None = None
    for depth, part in enumerate(parts):
        if isinstance(node, UnknownNode):
            return KeyLookup(node, depth, anchor)
        child: ConfigNode | None = None
        if isinstance(node, DictNode):
            anchor = node if node is not root else None
            child = node.entries.get(part)
            if child is None and _INT_KEY.fullmatch(part):
                child = node.entries.get(int(part))
        elif isinstance(node, SequenceNode) and part.isascii() and part.isdigit():
            index = int(part)
            child = node.items[index] if index < len(node.items) else None
        if child is None:
            return KeyLookup(None, depth, anchor)
        node = child
    return KeyLookup(node, len(parts), anchor)


def lookup(root: DictNode, key: tuple[str, ...] | str) -> ConfigNode | None:
    """The node at a dotted key, or None when a step is missing or unknown (see follow_key)."""
    parts = split_key(key) if isinstance(key, str) else key
    found = follow_key(root, parts)
    return found.node if found.depth == len(parts) else None


def walk_nodes(node: ConfigNode, key: str) -> Iterator[tuple[str, ConfigNode]]:
    """Every node of a subtree with its dotted key (list items by index), parents first."""
    yield key, node
    if isinstance(node, DictNode):
        for child_key, child in node.entries.items():
            yield from walk_nodes(child, f"{key}.{child_key}")
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.items):
            yield from walk_nodes(item, f"{key}.{index}")


class UnknownValueError(ValueError):
    """Raised by :func:`to_python` when the subtree holds an unknown value."""

    def __init__(self, node: UnknownNode) -> None:
        super().__init__(f"cannot evaluate statically: {node.source}")
        self.node = node


def _raise_unknown(node: UnknownNode) -> object:
    raise UnknownValueError(node)


def to_python(
    node: ConfigNode, on_unknown: Callable[[UnknownNode], object] = _raise_unknown
) -> object:
    """Plain Python value of a subtree (dicts, lists, tuples, scalars).

    An unknown value inside raises UnknownValueError, unless `on_unknown` says what stands
    for it (`cfglint show` prints a marker there).
    """
    if isinstance(node, ScalarNode):
        return node.value
    if isinstance(node, UnknownNode):
        return on_unknown(node)
    if isinstance(node, SequenceNode):
        items = [to_python(item, on_unknown) for item in node.items]
        return tuple(items) if node.is_tuple else items
    return {key: to_python(value, on_unknown) for key, value in node.entries.items()}


# ---------------------------------------------------------------------------
# Loader results.


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """A config (or one of its bases) could not be resolved. Reported as a CL9xx code."""

    code: str  # e.g. "CL901"
    message: str
    span: Span  # the file, and where in it, when known (line 1, column 1 otherwise)


@dataclass(frozen=True, slots=True)
class Discovered:
    leaves: tuple[Path, ...]  # checked as configs
    # `_base_` files named one by one (pre-commit passes changed files): checked through the
    # configs under the project root that inherit them.
    bases: tuple[Path, ...]
    problems: tuple[LoadProblem, ...]
    # Every file named one by one, leaves and bases: each also brings in the configs of its
    # project that inherit it (a leaf-to-leaf `_base_` chain, a shared fragment).
    named: tuple[Path, ...] = ()
    # Shell launchers named or found (`*.sh`): the launches they start are checked.
    launchers: tuple[Path, ...] = ()
    # `.py` files a folder walk left out because they do not look like configs (no `include`
    # in the settings): the run says how many.
    skipped: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class ResolvedConfig:
    """A config resolved the way MMEngine's ``Config.fromfile`` would, without executing it."""

    path: Path
    root: DictNode
    # Every file that took part (the config itself first, then its bases, depth first).
    files: tuple[Path, ...]
    # A launch view: the entry script and launchers whose changes are on top of the config.
    # A value set there cannot be overridden from the config files.
    overlay: tuple[Path, ...] = ()
    # Loaded in MMEngine's lazy-import mode (`with read_base():`): no merge over the bases, a
    # top-level assignment replaces what a base set (loader/lazy.py).
    lazy: bool = False

    def get(self, key: tuple[str, ...] | str) -> ConfigNode | None:
        return lookup(self.root, key)


@dataclass(frozen=True, slots=True)
class LoadFailure:
    path: Path
    problems: tuple[LoadProblem, ...]
    # The files from the config down to the one that failed, following `_base_`: which changed
    # base a failure goes through (a commit that breaks a base must fail its inheritors).
    files: tuple[Path, ...] = ()
    # Set when cfglint itself failed (an unexpected exception): an internal error, reported
    # with `crash_log.report` where the command runs. Never a lint finding; `problems` is then
    # empty.
    internal: Caught | None = None


LoadResult: TypeAlias = ResolvedConfig | LoadFailure


# ---------------------------------------------------------------------------
# Launches: how a job is started (docs/launches.md).

LaunchRunner = Literal["torchrun", "torch.distributed.launch", "python", "srun", "mpirun", "loop"]


@dataclass(frozen=True, slots=True)
class Launch:
    """One way a training job is started: an entry script run with arguments, in N processes.

    Found in a shell launcher (`torchrun --nproc_per_node=8 tools/train.py CONFIG --launcher
    pytorch`, OpenMMLab's `tools/dist_train.sh CONFIG 8`), given on the command line
    (`--entry SCRIPT`), or named in the settings (`entry-points`). Nothing is executed to find it.
    """

    entry: Path  # the entry script, absolute
    # What the script finds in `sys.argv[1:]`, in order. A word the launcher could not resolve
    # (a shell variable set outside the file) keeps its shell text, e.g. "$WORK_DIR", and its
    # index is in `unresolved`.
    arguments: tuple[str, ...]
    cwd: Path  # the folder the command runs in: relative paths in the arguments start there
    runner: LaunchRunner
    # Processes per host and hosts; None where the launcher leaves it to the environment.
    nproc_per_node: int | None = 1
    nnodes: int | None = 1
    unresolved: frozenset[int] = frozenset()
    # Variables the launcher sets for the process (`export X=...`, `X=... python ...`), not the
    # per-rank ones below.
    environment: Mapping[str, str] = field(default_factory=dict)
    # Per-rank variables the runner sets (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...): each
    # is set, with a value that differs from rank to rank or is chosen at run time.
    rank_variables: frozenset[str] = frozenset()
    # `python -m torch.distributed.launch` without `--use-env` appends `--local-rank=N`.
    passes_local_rank: bool = False
    source: Span | None = None  # the launcher's command line; None: the command line, settings
    # The launchers the command went through, outermost first (`start.sh` calling
    # `tools/dist_train.sh`): the line in each that led here.
    via: tuple[Span, ...] = ()
    # What the launcher left unknown, one line each (`${@:3}`: the caller's arguments).
    notes: tuple[str, ...] = ()

    @property
    def world_size(self) -> int | None:
        if self.nproc_per_node is None or self.nnodes is None:
            return None
        return self.nproc_per_node * self.nnodes


@dataclass(frozen=True, slots=True)
class LauncherNote:
    """Something a launcher does that is not a launch, or that cfglint did not follow, said at
    the line that does it (`python -m pkg.train`, a called launcher that does not exist)."""

    span: Span
    message: str
    via: tuple[Span, ...] = ()  # as in Launch.via: the lines of the outer launchers


@dataclass(frozen=True, slots=True)
class LauncherFile:
    """What a shell launcher starts, read statically (cfglint/launch/shell.py)."""

    path: Path
    launches: tuple[Launch, ...]  # in the order the launcher starts them
    # The launcher or a launcher it calls could not be read, or is cut short by a syntax error
    # (the commands before it still count, as they do for bash).
    problems: tuple[LoadProblem, ...] = ()
    notes: tuple[LauncherNote, ...] = ()
    # Every launcher file read, this one first: a change to any of them changes the launches.
    files: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class VendorImport:
    """The import that makes MMEngine see a vendor's accelerator (target data)."""

    modules: tuple[str, ...]  # importing any of these before mmengine is enough
    statement: str  # what a fix writes
    mmengine_device: str  # what mmengine.device.get_device() then returns
    cuda: bool  # whether torch.cuda calls then work (they go to the accelerator)
    library: str  # the vendor's package, which must be imported first (`torch_gcu`)


@dataclass(frozen=True, slots=True)
class HostFacts:
    """What a target's host does with the calls an entry script makes (from the target file)."""

    mmengine_device: str  # mmengine.device.get_device() when the script does nothing special
    cuda: bool  # torch.cuda calls work (an NVIDIA driver, or a library redirecting them)
    vendor_import: VendorImport | None = None
    # Vendor libraries of other targets: not installed on this host (`import torch_npu` fails).
    absent_libraries: frozenset[str] = frozenset()
    # What mmengine.dist.init_dist calls to pick the rank's device, and the collective backend
    # it uses whatever the config says (None: the config's `env_cfg.dist_cfg.backend`).
    init_dist_set_device: str = "torch.cuda.set_device"
    init_dist_backend: str | None = None
    # torch.nn.SyncBatchNorm trains on the device MMEngine resolves (None: not known).
    sync_batchnorm: bool | None = None


ScriptEventKind = Literal[
    "import", "init_dist", "process_group", "cuda_call", "module_setting", "ddp_wrap", "runner"
]


@dataclass(frozen=True, slots=True)
class ScriptEvent:
    """Something the entry script does that decides how the job runs, in the order it runs.

    `name` is what was called or set, by its qualified name (`mmengine.dist.init_dist`,
    `torch_gcu.transfer_to_gcu`, `torch.backends.cudnn.benchmark`, `.cuda()`); `values` the
    arguments that matter (`launcher`, `backend`, `device_ids`, `output_device`, `value`).
    """

    kind: ScriptEventKind
    name: str
    span: Span
    values: Mapping[str, ConfigNode] = field(default_factory=dict)
    after_runner: bool = False  # the Runner (and its model wrap) exists already


@dataclass(frozen=True, slots=True)
class Condition:
    """A branch of the entry script whose test cfglint cannot decide, and the side taken."""

    text: str  # the test's source
    holds: bool
    span: Span

    def describe(self) -> str:
        return f"`{self.text}`" if self.holds else f"not `{self.text}`"


@dataclass(frozen=True, slots=True)
class LaunchWorld:
    """One path through the entry script, from its first line to the Runner (or its end)."""

    conditions: tuple[Condition, ...]
    events: tuple[ScriptEvent, ...]
    # The config as the script hands it to the Runner: the resolved config with what the
    # script (and the launcher's arguments) changed on top, each value with its own origin.
    config: ResolvedConfig | None
    # Why the path ends without a Runner: the script exits, raises, or argparse rejects the
    # launch's words; None when it reaches one (or simply ends).
    ending: str | None = None
    ending_span: Span | None = None
    # The target's vendor import (`torch_gcu.transfer_to_gcu`) ran before mmengine was first
    # imported: MMEngine sees the accelerator on this path.
    vendor_imported: bool = False
    # The path reaches the Runner, but what it hands over cannot be evaluated statically (code
    # cfglint does not follow may have changed any key): why, and where the Runner is built.
    unknown_config: UnknownNode | None = None


@dataclass(frozen=True, slots=True)
class LaunchView:
    """A launch resolved statically: every path through its entry script."""

    launch: Launch
    config: Path | None  # the config the script loads (None: cfglint cannot tell)
    worlds: tuple[LaunchWorld, ...]
    problems: tuple[LoadProblem, ...] = ()  # the config or the script could not be read
    notes: tuple[str, ...] = ()  # what cfglint assumed or could not follow
    complete: bool = True  # every path was explored


# ---------------------------------------------------------------------------
# Violations and fixes.


class Applicability(enum.StrEnum):
    SAFE = "safe"
    UNSAFE = "unsafe"


class _Removal:
    """Marker for a key that a fix deletes."""

    _instance: _Removal | None = None

    def __new__(cls) -> _Removal:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REMOVE"


REMOVE = _Removal()


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class KeyChange:
    """Set ``key`` (a dotted path from the config root) to a literal value, or remove it."""

    key: tuple[str, ...]
    value: object  # None, bool, int, float, str, list/tuple/dict of those, or REMOVE


@dataclass(frozen=True, slots=True)
class SpanChange:
    """Change the value written at ``span`` (an expression in that file): set ``key`` under it
    (``()``: the value itself) to a literal value, or remove it.

    How a fix reaches a value the config takes through a variable, ``_base_.x``, ``.update()`` or
    an item assignment: the loader's origin says where the literal is written.
    """

    span: Span
    key: tuple[str, ...]
    value: object  # as in KeyChange


@dataclass(frozen=True, slots=True)
class ResolvedKeys:
    """Which keys on the way to a file's changed keys its config resolves to, before the fix:
    what a fixer writing into a lazy-import config needs to know (an item assignment reaches
    only a dict that exists, ``del`` only a key that exists)."""

    present: frozenset[tuple[str, ...]] = frozenset()
    dicts: frozenset[tuple[str, ...]] = frozenset()  # those of ``present`` holding a dict

    def __or__(self, other: ResolvedKeys) -> ResolvedKeys:
        return ResolvedKeys(self.present | other.present, self.dicts | other.dicts)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class LeafOverride:
    """A fix written as an override in the config itself (engine/leaf_override.py), worked out
    by the config's own check while its tree was at hand: fix placement then needs no tree to
    place it there (a `--output-format json` run places every fix of every config)."""

    changes: tuple[KeyChange, ...]
    resolved: ResolvedKeys | None = None  # for a lazy-import config, as FileChanges.resolved


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class FixIntent:
    """What a fix means, independent of which file it lands in.

    A fix of code (an entry script's line) is already placed: `anchored` changes values written
    at spans of that file, `edits` insert text there. Placement leaves both as they are.
    """

    message: str
    changes: tuple[KeyChange, ...]
    applicability: Applicability
    anchored: tuple[SpanChange, ...] = ()
    edits: tuple[TextEdit, ...] = ()

    @property
    def placed_in(self) -> Path | None:
        """The file a code fix edits (None: a config fix, placed by the fix engine)."""
        for change in self.anchored:
            return change.span.path
        for edit in self.edits:
            return edit.span.path
        return None


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace the text between ``span`` start and end with ``content`` (insertion: empty span)."""

    span: Span
    content: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A fix placed in concrete files."""

    message: str
    applicability: Applicability
    edits: tuple[TextEdit, ...]
    # Its edits are one with another finding's (one `env_cfg` override that CL101 and CL301
    # both need): that finding, by code and location, carries them; these are the rest.
    applied_with: tuple[str, Span] | None = None


# info: worth knowing, never wrong (a value the target ignores); never fails a run.
Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One diagnostic: a code at a location, for a target, covering the configs it applies to.

    A finding in a ``_base_`` file is one Violation whose ``configs`` lists every leaf config
    that inherits the value.
    """

    code: str
    message: str
    span: Span
    target: str | None
    configs: tuple[Path, ...]
    key: str | None = None
    fix_intent: FixIntent | None = None
    fix: Fix | None = None
    severity: Severity = "error"
    chain: tuple[Path, ...] = field(default=())
    # For a CL906: the rule that needed the unknown value. --select/--ignore and noqa for that
    # rule apply to the CL906 as well.
    needed_by: str | None = None

    @property
    def path(self) -> Path:
        return self.span.path


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a report needs to know about a rule (name, summary, docs link)."""

    code: str
    name: str
    summary: str
    url: str
    fix_applicability: Applicability | None
    # The longer explanation (Markdown): what the rule checks (SARIF's fullDescription).
    description: str = ""
