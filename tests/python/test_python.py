"""test_python.py: the Python package (python/mpilens) on real runs made here: a 4-rank ring
and tests/apps/diff_app.c's split Allreduce on 4 ranks, under profile,monitor,trace. Its
figures must equal the CLI's: `mpilens report --csv`, `mpilens matrix --format csv`,
otf2-print's events, `mpilens report --waits`. Run by ctest (python_package) with BUILD,
MPIRUN and PYTHONPATH set; every job has a timeout.
"""
import csv
import io
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

import mpilens

BUILD = os.environ["BUILD"]
MPIRUN = os.environ["MPIRUN"].split()
MPILENS = os.path.join(BUILD, "bin", "mpilens")
APPS = os.path.join(BUILD, "tests", "apps")
SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))


def sh(*args, timeout=180):
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    env_tmp = dict(os.environ, TMPDIR=str(root))
    made = {}
    for name, app in (("ring", [os.path.join(APPS, "ring"), "2"]),
                      ("split", [os.path.join(APPS, "diff_app"), "5"])):
        out = root / name
        subprocess.run([MPILENS, "run", "-m", "profile,monitor,trace", "-o", str(out), "--",
                        *MPIRUN, "-np", "4", *app], capture_output=True, timeout=180,
                       env=env_tmp, check=True)
        subprocess.run([MPILENS, "analyze", str(out)], capture_output=True, timeout=180,
                       env=env_tmp, check=True)
        made[name] = out
    return made


@pytest.mark.parametrize("name", ["ring", "split"])
def test_profile_sums_equal_report_csv(runs, name):
    run = mpilens.open(runs[name])
    sums = run.profile.groupby(["communicator", "operation", "bucket"])[["time", "volume"]].sum()
    rows = list(csv.DictReader(io.StringIO(sh(MPILENS, "report", str(runs[name]), "--csv"))))
    assert len(rows) == len(sums)
    for r in rows:
        mine = sums.loc[(r["comm"], r["operation"], int(r["bucket"]))]
        assert int(mine["volume"]) == int(r["volume_bytes"])
        assert abs(mine["time"] - float(r["total_time_s"])) < 1e-8


@pytest.mark.parametrize("name", ["ring", "split"])
@pytest.mark.parametrize("kind", ["p2p", "coll"])
def test_matrix_equals_cli_csv(runs, name, kind):
    m = mpilens.open(runs[name]).matrix(kind).to_numpy()
    cli = list(csv.DictReader(io.StringIO(
        sh(MPILENS, "matrix", str(runs[name]), "--kind", kind, "--format", "csv"))))
    expected = m * 0
    for r in cli:
        expected[int(r["src"]), int(r["dst"])] = int(r["bytes"])
    assert (m == expected).all()
    if name == "ring" and kind == "p2p":  # 2 rounds of 1 KiB to the next rank
        assert [m[r, (r + 1) % 4] for r in range(4)] == [2048] * 4 and m.sum() == 4 * 2048


def test_events_per_rank_equal_otf2_print(runs):
    run = mpilens.open(runs["ring"])
    events = run.events()
    printed = sh("otf2-print", os.path.join(runs["ring"], "trace", "traces.otf2"))
    per_location = {}
    for line in printed.splitlines():
        field = re.match(r"^[A-Z_]+ +(\d+) +\d+ ", line)
        if field:
            per_location[int(field.group(1))] = per_location.get(int(field.group(1)), 0) + 1
    assert events.groupby("rank").size().to_dict() == per_location
    two = run.events(ranks=[0, 3])
    assert sorted(two["rank"].unique()) == [0, 3]
    assert len(two) == per_location[0] + per_location[3]
    t0, t1 = events["time"].quantile([0.25, 0.75])
    window = run.events(start=t0, end=t1)
    assert len(window) == ((events["time"] >= t0) & (events["time"] <= t1)).sum()


def test_ring_sends_match_receives(runs):
    run = mpilens.open(runs["ring"])
    messages = run.messages()
    sends = (run.events()["event"] == "MpiSend").sum()
    assert len(messages) == sends == 8
    assert sorted(zip(messages["src"], messages["dst"])) == \
        sorted([(r, (r + 1) % 4) for r in range(4)] * 2)
    assert (messages["bytes"] == 1024).all() and (messages["latency"] >= 0).all()


@pytest.mark.parametrize("name", ["ring", "split"])
def test_waits_equal_analyze_table(runs, name):
    waits = mpilens.open(runs[name]).waits
    text = sh(MPILENS, "report", str(runs[name]), "--waits")
    table = text.split("by region and rank (seconds):", 1)[1]
    cli = {}
    for line in table.splitlines():
        m = re.match(r"^  (.+?)  +(\S+) +rank (\d+) +([0-9.]+)$", line)
        if m:
            cli[(m.group(1), m.group(2), int(m.group(3)))] = float(m.group(4))
    mine = waits[waits["pattern"] != "MPI"].groupby(["pattern", "region", "rank"])["seconds"].sum()
    assert cli, text
    for key, seconds in cli.items():
        assert abs(mine[key] - seconds) < 1e-6


def test_plots_render_png(runs, tmp_path):
    run = mpilens.open(runs["split"])
    for name, fig in (("matrix", run.plot_matrix()), ("profile", run.plot_profile()),
                      ("timeline", run.plot_timeline(ranks=[0, 1]))):
        path = tmp_path / f"{name}.png"
        fig.savefig(path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_metadata(runs):
    m = mpilens.open(runs["ring"]).metadata
    assert m["processes"] == 4 and m["complete"] and m["why"] is None
    assert m["command"].split()[0].endswith("/ring")


def test_damaged_runs_raise_one_error(runs, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(runs["ring"], bad)
    db = bad / "mpilens.db"
    with open(db, "r+b") as f:
        f.truncate(2048)
    with pytest.raises(mpilens.MpilensError, match=re.escape(str(db))):
        mpilens.open(bad).profile
    with pytest.raises(mpilens.MpilensError, match="no such run database"):
        mpilens.open(tmp_path / "missing")
    newer = tmp_path / "newer.db"
    shutil.copy(runs["ring"] / "mpilens.db", newer)
    con = sqlite3.connect(newer)
    con.execute("UPDATE metadata SET value = '99' WHERE key = 'Schema version'")
    con.commit()
    con.close()
    with pytest.raises(mpilens.MpilensError, match="schema version 99 is newer"):
        mpilens.open(newer)
    broken = tmp_path / "broken"
    shutil.copytree(runs["ring"], broken)
    (broken / "trace" / "traces.otf2").write_bytes(b"not otf2")
    with pytest.raises(mpilens.MpilensError, match=re.escape(str(broken / "trace"))):
        mpilens.open(broken).events()
    waiting = tmp_path / "waiting"  # a run without mpilens run: its logs not converted yet
    shutil.copytree(runs["ring"], waiting)
    (waiting / "trace" / "traces.otf2").unlink()
    (waiting / "trace" / "CONVERT-PENDING").write_text("the logs wait\n")
    with pytest.raises(mpilens.MpilensError, match=re.escape(f"mpilens recover {waiting}")):
        mpilens.open(waiting).events()


def test_example_script_runs(runs, tmp_path):
    out = subprocess.run([sys.executable, os.path.join(SRC, "examples", "python_example.py"),
                          str(runs["split"]), str(tmp_path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    # which one is busiest is the machine's business: the CLI's report must name the same
    rows = csv.DictReader(io.StringIO(sh(MPILENS, "report", str(runs["split"]), "--csv")))
    sums = {}
    for r in rows:
        if r["operation"] not in ("Init", "Init_thread", "Finalize"):
            key = (r["comm"], r["operation"])
            sums[key] = sums.get(key, 0) + float(r["total_time_s"])
    comm, op = max(sums, key=sums.get)
    assert re.search(rf"^busiest communicator: {re.escape(comm)} \({op}, ", out.stdout,
                     re.M), out.stdout
    assert (tmp_path / "matrix.png").exists()
# SPDX-License-Identifier: BSD-3-Clause
