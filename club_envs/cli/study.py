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
            "records instead of serving; with --report, print the results per condition and role, the "
            "paired comparison with the baseline agent on the same deals, the variance-reduced estimates and the "
            "smallest difference the study could detect; with --plan, how many participants and games a wanted "
            "difference needs."
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
    p.add_argument("--value-agent", default="heuristic",
                   help="with --report: the agent whose self-play on a deal gives the deal's value, the control "
                        "variate (default heuristic)")
    p.add_argument("--csv", type=Path, default=None, help="with --report: also write the table as CSV")
    g = p.add_argument_group("planning (--plan)")
    g.add_argument("--plan", action="store_true",
                   help="print how many participants and games detect --difference, then stop")
    g.add_argument("--difference", type=float, default=None, help="the difference to detect (win share or score)")
    g.add_argument("--measure", choices=("win", "score"), default="win",
                   help="what the difference is in, for a spread from the pilot (default win: win share)")
    g.add_argument("--sd", type=float, default=None,
                   help="the spread (standard deviation) of one game's result, or of one game's person - agent "
                        "difference when paired; default: estimated from the study's games so far (a pilot)")
    g.add_argument("--icc", type=float, default=None,
                   help="the share of that spread that is the person's own (0..1; default 0 with --sd, "
                        "else from the pilot)")
    g.add_argument("--alpha", type=float, default=0.05, help="two-sided significance level (default 0.05)")
    g.add_argument("--power", type=float, default=0.8, help="the chance of detecting the difference (default 0.8)")
    g.add_argument("--unpaired", action="store_true",
                   help="plan for the person against the baseline over --baseline-games other deals, "
                        "not on the same deals")
    g.add_argument("--games", type=int, default=None,
                   help="games per participant and condition (default: the study's games_per_condition)")
    return p


def check_plan_options(args: argparse.Namespace) -> None:
    """A bad planning option stops with its name and what is allowed, before anything is played."""
    if args.difference is None:
        raise ValueError("--plan needs --difference, the difference to detect (e.g. 0.1 for a win share)")
    for name, value, low, high, closed in (("--difference", args.difference, 0.0, float("inf"), False),
                                           ("--sd", args.sd, 0.0, float("inf"), False),
                                           ("--icc", args.icc, 0.0, 1.0, True),
                                           ("--alpha", args.alpha, 0.0, 1.0, False),
                                           ("--power", args.power, 0.0, 1.0, False)):
        if value is None:
            continue
        inside = (low <= value <= high) if closed else (low < value < high)
        if not inside:
            allowed = f"{low:g}..{high:g}" if closed else (
                "a number above 0" if high == float("inf") else f"between {low:g} and {high:g}")
            raise ValueError(f"{name} {value:g} is not allowed; allowed values: {allowed}")
    if args.games is not None and args.games < 1:
        raise ValueError(f"--games {args.games} is not allowed; allowed values: 1 or more")


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
    if args.plan:
        check_plan_options(args)
    if args.check:
        print(f"{args.study}: study {plan.name!r} is sound: {len(plan.conditions)} conditions, "
              f"{plan.games_per_condition} games each, order {plan.order}")
        return 0
    if args.plan and args.sd is not None:  # nothing to read: no database is opened (or made)
        return plan_study(args, plan, None, catalogue)

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
            return report(args, plan, store, catalogue)
        if args.plan:
            return plan_study(args, plan, store, catalogue)
    finally:
        store.close()

    return serve_study(args, plan, records_dir, database, agents_dir)


def report(args: argparse.Namespace, plan, store, catalogue) -> int:
    from club_envs.study.analysis import analyse, format_analysis, paired_games, reference_values
    from club_envs.study.report import add_baseline, condition_rows, format_rows, write_rows

    recs = [g.record for g in store.games() if g.record is not None]
    rows = condition_rows(recs)
    if args.baseline_games:
        rows = add_baseline(rows, plan, catalogue.make, args.baseline, args.baseline_games)
    print(format_rows(rows))
    pairs = paired_games(recs, plan, catalogue.make, args.baseline, args.value_agent)
    references = reference_values(plan, catalogue.make, args.value_agent, args.baseline_games) if pairs else {}
    print()
    print(format_analysis(analyse(pairs, plan, references, args.baseline, args.value_agent)))
    if args.csv:
        print(f"table written to {write_rows(rows, args.csv)}")
    return 0


def plan_study(args: argparse.Namespace, plan, store, catalogue) -> int:
    from club_envs.study.analysis import paired_games
    from club_envs.study.planning import format_plan, plan_spreads

    paired = not args.unpaired
    pairs = None
    if args.sd is None:  # the spread from the pilot: the study's games so far, beside the agent's on the same deals
        pairs = paired_games((g.record for g in store.games() if g.record is not None), plan, catalogue.make,
                             args.baseline, args.value_agent)
    spreads = plan_spreads(plan, pairs, args.sd, args.icc, args.measure, paired)
    print(format_plan(plan.name, args.difference, args.measure, args.alpha, args.power, paired,
                      args.games or plan.games_per_condition, args.baseline_games, spreads))
    return 0


def serve_study(args: argparse.Namespace, plan, records_dir: Path, database: str, agents_dir) -> int:
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
