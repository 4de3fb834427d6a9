"""``benchmarks/bench_table_ppo.py --config A --reference B`` measures two config files' own settings in
the same run and prints the first's rate beside the reference's."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.training.test_table_ppo import BASE

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_table_ppo", ROOT / "benchmarks" / "bench_table_ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_configs_are_measured_on_their_own_settings_and_compared(tmp_path, capsys, monkeypatch):
    bench = load_bench()
    reference = {**BASE, "network": {**BASE["network"], "hidden": [32]},
                 "imitation": {"decisions": 500}}  # dropped by the benchmark: imitation is not the loop
    wider = {**BASE, "network": {**BASE["network"], "hidden": [48, 48]}}
    (tmp_path / "ref.yaml").write_text(yaml.safe_dump(reference))
    (tmp_path / "wide.yaml").write_text(yaml.safe_dump(wider))
    seen = []
    measure = bench.measure_config

    def spy(cfg, steps, folder, name):
        seen.append((name, cfg["network"]["hidden"], steps))
        out = measure(cfg, steps, folder, name)
        seen.append(out)
        return out

    monkeypatch.setattr(bench, "measure_config", spy)
    monkeypatch.setattr(sys, "argv", ["bench_table_ppo.py", "--config", str(tmp_path / "wide.yaml"),
                                      "--reference", str(tmp_path / "ref.yaml"), "--steps", "800"])
    bench.main()
    out = capsys.readouterr().out
    assert [s[:2] for s in seen[0::2]] == [("reference", [32]), ("config", [48, 48])]  # reference first
    rates = {name: s["rate"] for (name, *_), s in zip(seen[0::2], seen[1::2])}
    assert all(s["steps"] >= 800 for s in seen[1::2]) and all(r > 0 for r in rates.values())
    rows = re.findall(r"^(\S+\.yaml)(?: \(reference\))?\s+([\d,]+)\s+([\d.]+)x$", out, flags=re.M)
    assert [name for name, *_ in rows] == ["ref.yaml", "wide.yaml"]
    assert float(rows[0][2]) == 1.0
    assert float(rows[1][2]) == pytest.approx(rates["config"] / rates["reference"], abs=0.006)


def test_config_without_reference_is_refused(monkeypatch, capsys):
    bench = load_bench()
    monkeypatch.setattr(sys, "argv", ["bench_table_ppo.py", "--config", "a.yaml"])
    with pytest.raises(SystemExit):
        bench.main()
    assert "--config and --reference go together" in capsys.readouterr().err
