"""``club-envs view``: step through recorded games in a browser, as a seat, a spectator or a researcher."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

MAX_FILES = 10_000  # record files one folder may list


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "view",
        help="watch a recorded game (or a folder of them) step by step in a browser",
        description=(
            "Serve a local page (on 127.0.0.1 only) that steps through a record: the table as one "
            "seat saw it at each moment, the spectator's view, or the researcher's view with every "
            "hidden card; the move log; what each agent weighed at its decisions (and, at a "
            "person's, what the shipped agent would have done); the final scores. A folder opens "
            "a list of its games. Records from simulate, evaluate, training, play and studies all work."
        ),
    )
    p.add_argument("target", type=Path, metavar="RECORD.json|FOLDER", help="a record file, or a folder of them")
    p.add_argument("--seat", default="all", metavar="N|public|all",
                   help="the view to serve: a seat number (only what that seat knew), 'public' (a "
                        "spectator) or 'all' (every view, the researcher's included; the default)")
    p.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser")
    return p


def check_seat(text: str) -> str | None:
    """``--seat`` as a view name (``None``: every view), or ``ValueError`` naming the allowed values."""
    value = text.strip().lower()
    if value == "all":
        return None
    if value == "public" or (value.isdigit() and len(value) <= 2):
        return value
    raise ValueError(f"--seat {text[:20]!r} is not allowed; expected a seat number (0, 1, ...), 'public' or 'all'")


def record_files(target: Path) -> list[Path]:
    """The record files ``target`` names: itself, or the ``*.json`` files under a folder, sorted."""
    if target.is_dir():
        files = sorted(p for p in target.rglob("*.json") if p.is_file())
        if not files:
            raise ValueError(f"{target}: the folder holds no record files (*.json)")
        if len(files) > MAX_FILES:
            raise ValueError(f"{target}: the folder holds {len(files)} record files, more than the {MAX_FILES} "
                             "the viewer lists; name a smaller folder")
        return files
    return [target]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_app(target: Path, seat: str):
    """The viewer's app for ``target`` (checked first: a single record must load and replay)."""
    from club_envs import records
    from club_envs.play.replay_view import Replay, parse_view
    from club_envs.web.app import LOCAL_HOSTS
    from club_envs.web.viewer import FolderSource, create_viewer_app

    views = check_seat(seat)
    files = record_files(target)
    if not target.is_dir():
        replay = Replay.from_record(records.load(target))  # a bad file is refused here, in one line
        if views is not None:
            parse_view(views, replay.num_players)
    return create_viewer_app(FolderSource(files, views), LOCAL_HOSTS), files


def run(args: argparse.Namespace) -> int:
    if args.port is not None and not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    app, files = build_app(args.target, args.seat)
    port = args.port or _free_port()
    path = "/replays" if args.target.is_dir() else f"/replays/0{'' if check_seat(args.seat) is None else '?view=' + check_seat(args.seat)}"
    url = f"http://127.0.0.1:{port}{path}"
    print(f"club-envs view: {len(files)} record file{'s' if len(files) != 1 else ''}; open {url} (Ctrl-C stops)",
          flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0
