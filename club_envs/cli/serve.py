"""``club-envs serve``: the web app for playing against agents in a browser."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_RECORDS = Path("runs/human")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "serve",
        help="start the web app to play against agents in a browser",
        description=(
            "Start the web app: pick a game, the number of players, your seat or role and the "
            "opponents, and play by clicking. Every game and move is stored in a database (SQLite "
            "beside the records folder by default), so a restarted server resumes every game; "
            "finished games are also saved as records. The owner link printed at start opens the "
            "results of every game."
        ),
    )
    add_server_options(p, default_records=DEFAULT_RECORDS)
    return p


def add_server_options(p: argparse.ArgumentParser, default_records: Path | None) -> None:
    """Options shared with ``club-envs study``."""
    p.add_argument("--host", default=None,
                   help="address to listen on (default 127.0.0.1: this machine only; a LAN address "
                        "such as 192.168.1.20 makes it reachable from the local network)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a further host name or address browsers may use to reach the server "
                        "(repeatable; needed with --host 0.0.0.0)")
    p.add_argument("--records", type=Path, default=default_records,
                   help="folder for the records of the games played"
                        + (f" (default {default_records})" if default_records
                           else " (default: the study file's 'records', else runs/studies/<name>)"))
    p.add_argument("--database", default=None, metavar="URL",
                   help="SQLAlchemy database URL (default: sqlite:///<records>.sqlite, a file beside the "
                        "records folder; e.g. postgresql+psycopg://user@host/db for a larger study)")
    p.add_argument("--agents-dir", type=Path, default=None,
                   help="a folder of further agents (policy files, run folders) people may choose by name")
    p.add_argument("--max-games", type=int, default=None,
                   help="games in progress on the whole server before new ones are refused (default 200)")
    p.add_argument("--max-games-per-browser", type=int, default=None,
                   help="games in progress per browser before new ones are refused (default "
                        + ("5)" if default_records else "1: a participant plays one game at a time)"))


def serve_app(app, host: str, port: int, what: str) -> None:
    import uvicorn

    url_host = f"[{host}]" if ":" in host else host
    print(f"club-envs: {what}: open http://{url_host}:{port}/ in a browser (Ctrl-C stops)")
    print(f"club-envs: owner link (results, records, export; keep it private): "
          f"http://{url_host}:{port}/admin?token={app.state.admin_token}", flush=True)
    from club_envs.web.collector import settle

    settle()  # the objects of start-up out of the collector's sight: no long pauses under a crowd
    uvicorn.run(app, host=host, port=port, log_level="warning")


def check_limits(args: argparse.Namespace) -> None:
    if args.port is not None and not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    for option in ("max_games", "max_games_per_browser"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise ValueError(f"--{option.replace('_', '-')} must be 1 or more, got {value}")


def run(args: argparse.Namespace) -> int:
    check_limits(args)
    from club_envs.web.app import MAX_GAMES, MAX_GAMES_PER_BROWSER, allowed_hosts_for, create_app

    host = args.host or "127.0.0.1"
    port = args.port or 8000
    app = create_app(
        args.records, database=args.database, allowed_hosts=allowed_hosts_for(host, args.allowed_host),
        agents_dir=args.agents_dir, max_games=args.max_games or MAX_GAMES,
        max_games_per_browser=args.max_games_per_browser or MAX_GAMES_PER_BROWSER,
    )
    print(f"club-envs: records go to {args.records}; games are stored in {app.state.store.url}")
    serve_app(app, host, port, "playing against agents")
    return 0
