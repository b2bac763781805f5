"""``arena demo``: the embedded default job, as a list of steps.

1. a round-robin of the four committed baselines (one seed, both sides, under
   the default case), stored in the data directory like any ``arena
   tournament --publish``, its standings printed;
2. every replay of it checked by re-simulation;
3. the template controller proved against the Foray case, as an author would
   (``arena new`` into ``<data>/demo-template``, built, played against every
   opponent, recorded as a run, and published);
4. the site served over the data directory (``arena serve``, web's, found
   through the ``foray_arena.site`` entry point) until Ctrl-C, its address
   printed with the console's link (its token in the link's fragment):
   ``--no-serve`` stops after step 3.

Each step is a function of the ``Demo`` so far that says whether it went
well; ``DEMO_STEPS`` lists them in order, and a later step (a proof run,
serving the site) is one more function in the list.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.cli._common import port, shown, stdout_console, u32

if TYPE_CHECKING:
    from rich.console import Console

    from arena.store import Store

__all__ = ["DEMO_STEPS", "MATCH_STEPS", "Demo", "DemoStep", "register", "run_demo"]


@dataclass
class Demo:
    """What the demo's steps share: where to print, the store, and what earlier steps made."""

    console: Console
    store: Store
    seed: int
    tournament_id: int | None = None
    """The demo tournament's id, once the tournament step has stored it."""
    notes: dict[str, object] = field(default_factory=dict)
    """Anything a step leaves for the steps after it."""


DemoStep = Callable[[Demo], bool]
"""One step of the demo: does its work, prints what it did, says whether it went well."""


def play_tournament(demo: Demo) -> bool:
    """The four baselines in a stored round-robin on one seed, both sides; its standings."""
    from arena.baselines import BASELINES
    from arena.cli._standings import print_standings, progress_bar
    from arena.coordinator import add_contestant, create_tournament, run_tournament_sync
    from arena.executors import LocalExecutor

    field = [add_contestant(demo.store, name)[1] for name in BASELINES]
    record = create_tournament(demo.store, "round-robin", field, seeds=(demo.seed,))
    demo.tournament_id = record.id
    # Published: the site shows it to a newcomer without a token.
    demo.store.publish_tournament(record.id)
    with progress_bar(demo.console, demo.console.is_terminal) as on_progress:
        run = run_tournament_sync(demo.store, record.id, LocalExecutor(), on_progress=on_progress)
    print_standings(demo.console, run.record, run.standings)
    return run.stats.errors == 0


def verify_replays(demo: Demo) -> bool:
    """Re-simulate every replay of the demo tournament and compare every tick's checksum."""
    import replays

    assert demo.tournament_id is not None, "the tournament step comes first"
    matches = demo.store.tournament_matches(demo.tournament_id)
    failed = []
    for match in matches:
        if match.result is None:
            continue
        report = replays.verify_replay(demo.store.read_replay_bytes(match.result.replay_sha256))
        if not report.ok:
            failed.append(f"match {match.id} (tick {report.mismatch_tick})")
    verified = sum(m.result is not None for m in matches) - len(failed)
    where = shown(demo.store.root / "replays")
    demo.console.print(f"replays: {verified} of {len(matches)} verified by re-simulation ({where})")
    for what in failed:
        demo.console.print(f"VERIFY FAILED: {what}", markup=False)
    return verified == len(matches)


def prove_template(demo: Demo) -> bool:
    """The template controller, laid out and built as an author would, proved on the Foray case."""
    from arena.cases import default_case
    from arena.cli._prove import _print_report
    from arena.proving import new_project, prove
    from arena.store import RunOutcome

    case = default_case()
    project = demo.store.root / "demo-template"
    if not project.is_dir() or not any(project.iterdir()):
        new_project(project, case)
    proof = prove(project, case, store=demo.store, name="template")
    demo.notes["run"] = proof.run.id
    # Recorded as published: proved on this very store, as a push to it would be checked.
    demo.store.publish_run(proof.run.id)
    if proof.found:
        demo.console.print(f"the template was proved before: run {proof.run.id}", markup=False)
    _print_report(proof.report)
    return proof.run.outcome is not RunOutcome.COULD_NOT_COMPETE


def serve_site(demo: Demo) -> bool:
    """The site over the data directory, until Ctrl-C (web's ``serve_site``, by entry point)."""
    from arena._extensions import SITE, extensions

    entry = extensions(SITE).get("web")
    if entry is None:
        demo.console.print("the site is not installed here (the web package): not served")
        return True
    where = demo.notes.get("serve", ("127.0.0.1", 8000))
    assert isinstance(where, tuple)
    demo.console.print("the site: the tournament, the run and every match, in the browser")
    code: int = entry.load()(*where, console_link=True)
    return code == 0


MATCH_STEPS: tuple[DemoStep, ...] = (play_tournament, verify_replays, prove_template)
"""The steps that play: ``arena demo --no-serve`` stops after them."""
DEMO_STEPS: tuple[DemoStep, ...] = (*MATCH_STEPS, serve_site)


def run_demo(
    seed: int = 0,
    *,
    steps: Sequence[DemoStep] = DEMO_STEPS,
    serve: tuple[str, int] = ("127.0.0.1", 8000),
) -> int:
    """Run the demo's ``steps`` in order on the data directory's store; a process exit code.

    Every step runs, even after one went wrong; the code is 1 if any did.
    ``serve`` is where the site step listens (host, port).
    """
    from arena.store import Store

    with Store.open() as store:
        demo = Demo(stdout_console(), store, seed)
        demo.notes["serve"] = serve
        results = [step(demo) for step in steps]
    return 0 if all(results) else 1


def cmd_demo(args: argparse.Namespace) -> int:
    if args.no_serve:
        return run_demo(args.seed, steps=MATCH_STEPS)
    return run_demo(args.seed, serve=(args.host, args.port))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser(
        "demo",
        help="the main job: a stored round-robin of the baselines, the template proved,"
        " then the site",
    )
    d.add_argument(
        "--seed", type=u32, default=0, help="the seed of the baselines' round-robin (default 0)"
    )
    d.add_argument(
        "--no-serve", action="store_true", help="stop after the matches (do not serve the site)"
    )
    d.add_argument("--host", default="127.0.0.1", help="where the site listens (127.0.0.1)")
    d.add_argument("--port", type=port, default=8000, help="the site's port (8000; 0: any free)")
    d.set_defaults(func=cmd_demo)
