"""``club-envs study STUDY.yaml``: run a study of agents against people, export it, report it."""

from __future__ import annotations

import argparse
from pathlib import Path

from club_envs.cli.checks import check_output_file, check_output_folder
from club_envs.cli.serve import add_server_options, check_limits, serve_app


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "study",
        help="run a study: participants enter a code and play the study's games against agents",
        description=(
            "Serve the study described in STUDY.yaml (conditions, games per condition, counterbalanced "
            "order, seeds, participant codes, consent text). Every game and move is stored in a database; "
            "a restarted server continues every game. With --export, write the outcomes (CSV) and the "
            "records instead of serving; with --report, print the results per condition and role."
        ),
    )
    p.add_argument("study", type=Path, help="the study file (YAML)")
    add_server_options(p, default_records=None)
    p.add_argument("--check", action="store_true", help="check the study file and its agents, then stop")
    p.add_argument("--export", type=Path, default=None, metavar="DIR",
                   help="write DIR/outcomes.csv and DIR/records/*.json from the database, then stop")
    p.add_argument("--report", action="store_true",
                   help="print the people's win share per condition and role with 95%% Wilson intervals, "
                        "beside the baseline, then stop")
    p.add_argument("--baseline", default="heuristic",
                   help="agent that plays the person's seat for the baseline (default heuristic)")
    p.add_argument("--baseline-games", type=int, default=100,
                   help="seeded games per condition for the baseline (default 100; 0 for none)")
    p.add_argument("--csv", type=Path, default=None, help="with --report: also write the table as CSV")
    return p


def run(args: argparse.Namespace) -> int:
    check_limits(args)
    check_output_folder(args.export, "--export")  # before the database is opened: a bad path leaves nothing
    check_output_file(args.csv, "--csv")
    from club_envs.play.catalogue import AgentCatalogue
    from club_envs.study import plan as plans
    from club_envs.study.plan import check_agents, new_codes
    from club_envs.store import Store, default_url

    plan = plans.load(args.study)
    records_dir = args.records or plan.records or Path("runs/studies") / plan.name
    database = args.database or plan.database or default_url(records_dir)
    agents_dir = args.agents_dir or plan.agents_dir
    catalogue = AgentCatalogue(agents_dir)
    check_agents(plan, catalogue.make)
    if args.baseline_games < 0:
        raise ValueError(f"--baseline-games must be 0 or more, got {args.baseline_games}")
    if args.check:
        print(f"{args.study}: study {plan.name!r} is sound: {len(plan.conditions)} conditions, "
              f"{plan.games_per_condition} games each, order {plan.order}")
        return 0

    store = Store(database)
    try:
        if plan.generate_codes:
            have = len(store.participants())
            if have < plan.generate_codes:
                store.ensure_participants(new_codes(plan.generate_codes - have))
        store.ensure_participants(plan.codes)
        plan.codes = [code for code, _, _ in store.participants()]
        if args.export is not None:
            from club_envs.study.export import export

            csv_path, folder, count = export(store, args.export)
            print(f"{count} games exported: outcomes to {csv_path}, records to {folder}")
            return 0
        if args.report:
            from club_envs.study.report import add_baseline, condition_rows, format_rows, write_rows

            rows = condition_rows(g.record for g in store.games() if g.record is not None)
            if args.baseline_games:
                rows = add_baseline(rows, plan, catalogue.make, args.baseline, args.baseline_games)
            print(format_rows(rows))
            if args.csv:
                print(f"table written to {write_rows(rows, args.csv)}")
            return 0
    finally:
        store.close()

    from club_envs.web.app import MAX_GAMES, allowed_hosts_for, create_app

    server = plan.server
    host = args.host or server.get("host", "127.0.0.1")
    port = args.port or server.get("port", 8000)
    allowed = allowed_hosts_for(host, [*server.get("allowed_hosts", []), *args.allowed_host])
    app = create_app(
        records_dir, database=database, allowed_hosts=allowed, agents_dir=agents_dir, study=plan,
        max_games=args.max_games or server.get("max_games", MAX_GAMES),
        max_games_per_browser=args.max_games_per_browser or 1,
    )
    print(f"club-envs: study {plan.name!r}: {len(plan.codes)} participants, {plan.total_games} games each; "
          f"records go to {records_dir}; games are stored in {database}")
    print("club-envs: participant codes: " + ", ".join(plan.codes))
    serve_app(app, host, port, f"study {plan.name}")
    return 0
