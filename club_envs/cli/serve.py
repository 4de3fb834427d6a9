"""``club-envs serve``: the local web app for playing against agents in a browser."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_RECORDS = Path("runs/human")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "serve",
        help="start the web app to play against agents in a browser",
        description=(
            "Start a local web app: pick a game, the number of players, your seat or role and the "
            "opponents, and play by clicking. Finished games are saved as records; /results lists them."
        ),
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--records", type=Path, default=DEFAULT_RECORDS,
                   help=f"folder for the records of the games played (default {DEFAULT_RECORDS})")
    return p


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    import uvicorn

    from club_envs.web.app import create_app

    app = create_app(args.records)
    print(f"club-envs: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops); "
          f"records go to {args.records}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
