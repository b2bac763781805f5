"""``arena case check DIR`` and ``arena cases``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.cli._common import emit_json

__all__ = ["register"]


def cmd_check(args: argparse.Namespace) -> int:
    from arena import cases

    directory = Path(args.dir)
    try:
        case = cases.load_case(directory)
    except cases.CaseInvalidError as exc:
        if args.json:
            errors = [e.to_dict() for e in exc.errors]
            emit_json({"ok": False, "directory": str(directory), "case": None, "errors": errors})
            return 1
        for error in exc.errors:
            print(error)
        count = len(exc.errors)
        print(f"{directory}: not a valid case: {count} error{'s' if count != 1 else ''}")
        return 1
    if args.json:
        emit_json({"ok": True, "directory": str(directory), "case": case.to_json(), "errors": []})
        return 0
    where = "" if case.version is not None else " (outside the catalog layout: no version)"
    print(
        f"{directory}: ok: {case.label}, {case.type} {case.difficulty}, "
        f"{len(case.opponents)} opponent{'s' if len(case.opponents) != 1 else ''}, "
        f"manifest sha256 {case.manifest_sha256}{where}"
    )
    return 0


def _problem_json(problem: Exception) -> dict[str, Any]:
    """A case of the catalog that does not load: where, why, and every error."""
    from arena import cases

    if not isinstance(problem, cases.CaseInvalidError):
        return {"directory": None, "unsupported_type": None, "message": str(problem), "errors": []}
    return {
        "directory": str(problem.directory),
        "unsupported_type": getattr(problem, "case_type", None),
        "message": str(problem),
        "errors": [e.to_dict() for e in problem.errors],
    }


def cmd_list(args: argparse.Namespace) -> int:
    from arena import cases

    catalog = cases.scan_catalog(Path(args.catalog) if args.catalog else None)
    shown = catalog.visible(include_experimental=args.all)
    invalid = [p for p in catalog.problems if not isinstance(p, cases.UnsupportedCaseTypeError)]
    if args.json:
        emit_json(
            {
                "catalog": str(catalog.root),
                "cases": [c.to_json() for c in shown],
                "problems": [_problem_json(p) for p in catalog.problems],
            }
        )
    else:
        rows = [("type", "difficulty", "slug", "version", "name")]
        rows += [
            (
                str(c.type),
                str(c.difficulty),
                c.slug,
                str(c.version),
                c.name + (" (experimental)" if c.experimental else ""),
            )
            for c in shown
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        for problem in catalog.problems:
            if isinstance(problem, cases.UnsupportedCaseTypeError):
                print(
                    f"skipped {problem.directory}: type {problem.case_type!r} is not hosted here",
                    file=sys.stderr,
                )
            else:
                print(f"error: {problem}", file=sys.stderr)
    return 1 if invalid else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    case = sub.add_parser("case", help="case manifests").add_subparsers(
        dest="case_command", required=True
    )
    ck = case.add_parser("check", help="validate a case directory (exit 1 listing every error)")
    ck.add_argument("dir", help="the directory holding test-case.toml")
    ck.add_argument("--json", action="store_true")
    ck.set_defaults(func=cmd_check)

    ls = sub.add_parser("cases", help="list the case catalog")
    ls.add_argument("--all", action="store_true", help="include experimental cases")
    ls.add_argument("--catalog", help="a catalog directory (default: the repository's cases/)")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)
