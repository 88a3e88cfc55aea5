"""Oracle for the launch view: the real entry scripts against cfglint's static reading of them.

The real `tools/train.py` of mmdet, mmsegmentation and mmpretrain runs on over 200 real
(config, arguments) cases (benchmarks/entry_oracle.py, which also checks itself); cfglint reads
the same launches statically. Key by key, the config a script hands to the Runner must equal
cfglint's launch view:

- a key every path of the view sets to the same known value must equal the real one;
- a key the paths set differently (a branch cfglint cannot decide, such as a torch version
  check) must have the real value among its alternatives;
- a launch the real script stops (argparse, an exception) must reach no Runner in the view.

Agreement and coverage are printed; agreement must be 100%.
"""

from __future__ import annotations

import pytest
from corpus import CorpusInfo, ensure_corpus, findable_packages
from entry_oracle import EntryCase, select_cases, self_check
from mmengine_oracle import same

from cfglint.launch.explore import explore
from cfglint.loader import Loader
from cfglint.types import (
    DictNode,
    HostFacts,
    Launch,
    LaunchView,
    UnknownValueError,
    to_python,
)

pytestmark = pytest.mark.corpus

# The scripts run on this machine's CPU-only torch: the host the view is read for.
HOST = HostFacts("cpu", cuda=False)


def _view(case: EntryCase, loader: Loader) -> LaunchView:
    launch = Launch(case.script, case.argv, case.cwd, "python", environment=dict(case.env))
    return explore(launch, HOST, loader)


def _alternatives(view: LaunchView, key: str) -> list[object] | None:
    """The key's value on each path reaching the Runner; None when one is not known."""
    values: list[object] = []
    for world in view.worlds:
        if world.config is None:
            continue
        node = world.config.root.entries.get(key)
        if node is None:
            values.append(_ABSENT)
            continue
        try:
            values.append(to_python(node))
        except UnknownValueError:
            return None
    return values


_ABSENT = object()


def test_the_launch_view_agrees_with_the_real_entry_scripts() -> None:
    corpus = ensure_corpus()
    outcomes = self_check()
    cases = {case.label: case for case in _cases(corpus)}
    loader = Loader(environ={})
    disagreements: list[str] = []
    keys = definite = maybe = 0
    stops_agreed = 0
    with findable_packages(corpus):
        for label, outcome in sorted(outcomes.items()):
            view = _view(cases[label], loader)
            reaches = [world for world in view.worlds if world.config is not None]
            if outcome.status != "ok":
                if reaches:
                    disagreements.append(
                        f"{label}: the script stops ({outcome.value}), the view reaches the Runner"
                    )
                else:
                    stops_agreed += 1
                continue
            if not reaches:
                endings = [w.ending for w in view.worlds] or [p.message for p in view.problems]
                disagreements.append(f"{label}: the view reaches no Runner: {endings[:1]}")
                continue
            theirs = outcome.value
            assert isinstance(theirs, dict)
            for key, value in theirs.items():
                keys += 1
                alternatives = _alternatives(view, key)
                if alternatives is None:
                    continue
                distinct = _distinct(alternatives)
                if len(distinct) == 1:
                    definite += 1
                    if not same(distinct[0], value):
                        disagreements.append(
                            f"{label}: {key}: cfglint {distinct[0]!r} != {value!r}"
                        )
                else:
                    maybe += 1
                    if not any(same(mine, value) for mine in distinct):
                        disagreements.append(f"{label}: {key}: none of {distinct!r} is {value!r}")
            for world in reaches:
                assert isinstance(world.config.root, DictNode)
                extra = set(world.config.root.entries) - set(theirs)
                if extra:
                    disagreements.append(
                        f"{label}: keys the script does not hand over: {sorted(map(str, extra))}"
                    )
    resolved = definite + maybe
    agreement = (resolved - len(disagreements)) / max(resolved, 1)
    stops = sum(outcome.status != "ok" for outcome in outcomes.values())
    coverage = resolved / max(keys, 1)
    print(
        f"\ncases: {len(outcomes)}; the script stops in {stops}, the view agrees on {stops_agreed}"
    )
    print(
        f"top-level keys handed to the Runner: {keys}; known in the view: {resolved} "
        f"(coverage {coverage:.4%}); one value {definite}, a value per path {maybe}"
    )
    print(f"agreement {agreement:.4%}; disagreements: {len(disagreements)}")
    for line in disagreements[:40]:
        print("  " + line)
    assert not disagreements
    assert coverage >= 0.99


def _distinct(values: list[object]) -> list[object]:
    found: list[object] = []
    for value in values:
        if not any(
            same(value, other) if value is not _ABSENT and other is not _ABSENT else value is other
            for other in found
        ):
            found.append(value)
    return found


def _cases(corpus: CorpusInfo) -> list[EntryCase]:
    return list(select_cases(corpus).cases)  # the selection self_check ran (cached)
