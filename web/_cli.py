"""The commands ``web`` adds to ``arena`` (found through the ``foray_arena.commands`` entry point).

``arena`` may not import ``web`` (the layering is sim < replays < arena < web), so
``web`` registers its commands into arena's parser. Heavy imports wait for the
command to run: the parser is built for every command.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["register_commands"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0..65535)")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 3600:
        raise argparse.ArgumentTypeError(f"{text}: between 0 and 3600 seconds")
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    from web._connections import ConnectionLimits
    from web._limits import SiteLimits
    from web._serve_site import serve_site

    defaults = SiteLimits()
    limits = SiteLimits(
        workers=args.jobs or defaults.workers,
        queue=args.queue or defaults.queue,
        keep_quick=args.keep_quick or defaults.keep_quick,
    )
    bounds = ConnectionLimits()
    connections = ConnectionLimits(
        max_connections=args.max_connections or bounds.max_connections,
        waiting_per_client=bounds.waiting_per_client,
        header_timeout=args.header_timeout or bounds.header_timeout,
    )
    return serve_site(
        args.host,
        args.port,
        limits=limits,
        allowed_hosts=args.allowed_host,
        connections=connections,
        field=not args.no_field,
    )


def cmd_push(args: argparse.Namespace) -> int:
    import json

    from arena import shown
    from web._push import PushRefused, push

    try:
        created, run = push(args.run, args.server)
    except PushRefused as exc:
        if args.json:
            print(json.dumps({"pushed": False, "reason": str(exc)}, indent=2))
        print(f"refused: {shown(exc)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"pushed": True, "created": created, "run": run}, indent=2))
    else:
        page = args.server.rstrip("/") + f"/runs/{run['run']}"
        what = "checked and recorded" if created else "already there: nothing changed"
        print(f"run {args.run}: {what}, as run {run['run']} at {shown(page)}")
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    import json

    import arena
    from arena import shown
    from web._token import Role, new_token, token_digest

    with arena.Store.open() as store:
        if args.token_command == "create":
            role = Role(args.role)
            token = new_token()
            name = args.name if args.name is not None else f"{role}-{len(store.tokens()) + 1}"
            record = store.add_token(name, role, token_digest(token))
            if args.json:
                print(json.dumps({**record.to_json(), "token": token}, indent=2))
            else:
                print(
                    f"token {record.id}: {record.role} {shown(record.name)} (printed this once;"
                    " the store keeps only its digest):",
                    file=sys.stderr,
                )
                print(token)
            return 0
        if args.token_command == "revoke":
            record = store.revoke_token(args.token)
            if args.json:
                print(json.dumps(record.to_json(), indent=2))
            else:
                print(f"token {record.id}: {record.role} {shown(record.name)}: revoked")
            return 0
        records = store.tokens()
    if args.json:
        print(json.dumps([r.to_json() for r in records], indent=2))
        return 0
    if not records:
        print("no tokens (arena token create --role console|worker|push)")
    names = [shown(r.name) for r in records]
    width = max(map(len, names), default=0)  # the columns after the name line up
    for r, name in zip(records, names, strict=True):
        state = "live" if r.revoked_at is None else f"revoked {r.revoked_at:%Y-%m-%d %H:%M}"
        made = f"{r.created_at:%Y-%m-%d %H:%M}"
        print(f"{r.id:>4}  {r.role:<8} {name:<{width}}  created {made}  {state}")
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    import arena
    from web._token import TOKEN_ENV
    from web._worker import run_worker

    if args.token_file is not None:
        try:
            token = Path(args.token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise arena.ArenaError(
                f"--token-file {args.token_file}: cannot read it: {exc}"
            ) from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise arena.ArenaError(
            f"no token: set ${TOKEN_ENV} or give --token-file (arena token create --role worker"
            f" --name {args.name} on the server)"
        )
    return run_worker(args.server, args.name, token, every=args.every)


def cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    from web._local import view

    return view(Path(args.replay), port=args.port, open_browser=not args.no_open)


def register_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena serve``, ``arena push``, ``arena token``, ``arena worker`` and ``arena view``
    to arena's command parser."""
    s = sub.add_parser(
        "serve", help="serve the site (runs, matches, tournaments, the console) over the data dir"
    )
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: a free one)")
    s.add_argument("--jobs", type=_positive, help="worker processes for matches (default: cores)")
    s.add_argument(
        "--queue", type=_positive, help="quick matches accepted at once, past it 429 (default 32)"
    )
    s.add_argument(
        "--keep-quick",
        type=_positive,
        metavar="N",
        help="quick matches kept for review (default 1000); older ones are deleted with"
        " their replays (published ones are kept, and not counted)",
    )
    s.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name the server answers to, others get 400 (repeatable; default:"
        " localhost, 127.0.0.1, ::1 and --host; '*' answers any)",
    )
    s.add_argument(
        "--max-connections",
        type=_positive,
        help="connections open at once (default 4096; fewer with too few file descriptors)",
    )
    s.add_argument(
        "--header-timeout",
        type=_seconds,
        metavar="S",
        help="seconds a request's headers may take to arrive (default 10)",
    )
    s.add_argument(
        "--no-field",
        action="store_true",
        help="do not make the case's field of the committed opponents at start (it is then"
        " made by the first push); a field there already plays on",
    )
    s.set_defaults(func=cmd_serve)
    p = sub.add_parser(
        "push",
        help="upload a local proof run to a server, which checks it",
        description="Upload a local proof run to a server, which plays it again and publishes"
        " it. $ARENA_TOKEN holds a push (or console) token of that server: made there, over"
        " its data directory, by arena token create --role push.",
    )
    p.add_argument("run", type=_positive, help="the run's id in the local store (arena runs)")
    p.add_argument("--server", required=True, help="the server's address, http://host:port")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=cmd_push)
    t = sub.add_parser(
        "token", help="the site's tokens: create one (printed once), list them, revoke one"
    )
    tsub = t.add_subparsers(dest="token_command", required=True)
    tc = tsub.add_parser("create", help="make a token, print it once, keep only its digest")
    tc.add_argument(
        "--role",
        required=True,
        choices=["console", "worker", "push"],
        help="console: everything the console does; worker: answer for the worker --name"
        " names; push: push runs",
    )
    tc.add_argument("--name", help="its name (a worker token's: the worker's); default role-N")
    tc.add_argument("--json", action="store_true", help="print the record and the token as JSON")
    tl = tsub.add_parser("list", help="the tokens (never the tokens themselves)")
    tl.add_argument("--json", action="store_true", help="print them as JSON")
    tr = tsub.add_parser("revoke", help="revoke a token by name or id: it opens nothing after")
    tr.add_argument("token", help="the token's name or id (arena token list)")
    tr.add_argument("--json", action="store_true", help="print its record as JSON")
    t.set_defaults(func=cmd_token)
    w = sub.add_parser(
        "worker",
        help="offer this data dir's local runs to a site, over a connection this opens itself",
    )
    w.add_argument("--server", required=True, help="the site's address, http://host:port")
    w.add_argument("--name", required=True, help="the worker's name (its worker token's name)")
    w.add_argument(
        "--token-file",
        metavar="FILE",
        help="a file holding the worker token (default: $ARENA_TOKEN)",
    )
    w.add_argument(
        "--every",
        type=_seconds,
        default=5.0,
        metavar="S",
        help="seconds between two reads of the local runs (default 5)",
    )
    w.set_defaults(func=cmd_worker)
    v = sub.add_parser(
        "view", help="watch a replay file in the browser (served on 127.0.0.1, no store or token)"
    )
    v.add_argument("replay", help="a replay file")
    v.add_argument("--port", type=_port, default=0, help="port on 127.0.0.1 (default: a free one)")
    v.add_argument(
        "--no-open", action="store_true", help="print the address but do not open a browser"
    )
    v.set_defaults(func=cmd_view)
