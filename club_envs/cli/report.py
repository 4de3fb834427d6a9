"""``club-envs report``: how agents fared against people, from the records of human games."""

from __future__ import annotations

import argparse
from pathlib import Path

from club_envs.cli.checks import check_output_file
from club_envs.report import format_table, summarise, write_chart, write_csv
from club_envs.study.report import format_rows as format_studies
from club_envs.study.report import rows_from_files


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report",
        help="summarise human games: per agent (and role) the human's and the agent's win shares",
        description=(
            "Read game records (files, or folders searched recursively for *.json), keep the games "
            "a person played (a seat whose controller is 'human'), and print per game, agent and "
            "(Arkham Decoders Club) role: games, the human's and the agent's win share with 95%% "
            "Wilson intervals, and mean scores; games of a study (club-envs study) also per condition "
            "and role. Also writes a CSV file and a PNG chart."
        ),
    )
    p.add_argument("records", nargs="+", type=Path, help="record files or folders of records")
    p.add_argument("--csv", type=Path, default=Path("runs/report/human_report.csv"),
                   help="where to write the table as CSV (default runs/report/human_report.csv)")
    p.add_argument("--png", type=Path, default=Path("runs/report/human_report.png"),
                   help="where to write the chart (default runs/report/human_report.png)")
    p.add_argument("--no-chart", action="store_true", help="skip the PNG chart")
    return p


def run(args: argparse.Namespace) -> int:
    check_output_file(args.csv, "--csv")
    if not args.no_chart:
        check_output_file(args.png, "--png")
    report = summarise(args.records)
    print(format_table(report))
    studies = rows_from_files(args.records)  # games of a study: per condition and role
    if studies:
        print()
        print(format_studies(studies))
    print()
    print(f"table written to {write_csv(report, args.csv)}")
    if not args.no_chart:
        print(f"chart written to {write_chart(report, args.png)}")
    return 0
