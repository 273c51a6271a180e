"""The piox-locality tool (locality/tool) over map files whose placement is known: the
chunk table, each host's share and the scheduler's assignment are printed exactly;
every chunk goes to one rank; speeds shift bytes; under mpiexec the job's own hosts
are used and the storage is asked once; usage errors exit 2, storage errors 1."""
import re
import subprocess

import pytest

from conftest import BUILD, MpiRun, _clean_env

TOOL = BUILD / "locality" / "piox-locality"
MAP = """dli-map 1
file /data/set.bin
""" + "".join(f"{i * 1000} 1000 {h}\n" for i, h in enumerate(
    ["nodeA,nodeB", "nodeB,nodeC", "nodeC,nodeA", "nodeA", "nodeB", "nodeC"] * 4))


@pytest.fixture
def map_file(tmp_path):
    path = tmp_path / "set.map"
    path.write_text(MAP)
    return path


def run(args, env=None):
    result = subprocess.run([str(TOOL)] + [str(a) for a in args], capture_output=True, text=True,
                            timeout=60, env={**_clean_env(), **(env or {})})
    return result.returncode, result.stdout, result.stderr


def rank_rows(out):
    """{rank: (host, chunks, bytes, local percent)} from the assignment table."""
    rows = re.findall(r"^\s+(\d+) (\S+)\s+(\d+)\s+(\d+)\s+([\d.]+)%$", out.split("assignment:")[1], re.M)
    return {int(r): (h, int(c), int(b), float(p)) for r, h, c, b, p in rows}


def test_the_three_tables(map_file):
    code, out, err = run(["--hint", f"dli_map_file={map_file}", "--rows", "0", "/data/set.bin"])
    assert code == 0, err
    assert "/data/set.bin: 24000 bytes in 24 chunks" in out
    assert re.search(r"^\s+0\s+0\s+1000\s+nodeA nodeB$", out, re.M)
    assert re.search(r"^\s+23\s+23000\s+1000\s+nodeC$", out, re.M)
    # Each host holds 3 of every 6 chunks: 12 of 24.
    for host in ("nodeA", "nodeB", "nodeC"):
        assert re.search(rf"^{host}\s+12\s+12000\s+50.0%$", out, re.M), out
    rows = rank_rows(out)
    assert [rows[r][0] for r in range(3)] == ["nodeA", "nodeB", "nodeC"]
    assert sum(row[2] for row in rows.values()) == 24000   # every chunk exactly once
    assert [row[2] for row in rows.values()] == [8000] * 3
    assert "locality: 100.0% of the bytes" in out


def test_ranks_speeds_and_rows(map_file):
    code, out, err = run(["--hint", f"dli_map_file={map_file}", "--hosts", "nodeA,nodeB,nodeC",
                          "--speeds", "1,1,2", "--ranks", "6", "--rows", "4", "--seed", "7", "/data/set.bin"])
    assert code == 0, err
    assert "(20 more chunks; --rows 0 prints all)" in out
    rows = rank_rows(out)
    assert [rows[r][0] for r in range(6)] == ["nodeA", "nodeB", "nodeC"] * 2
    assert sum(row[2] for row in rows.values()) == 24000
    fast = sum(row[2] for row in rows.values() if row[0] == "nodeC")
    assert fast == 12000   # half the speed of the job, half the bytes
    again = run(["--hint", f"dli_map_file={map_file}", "--hosts", "nodeA,nodeB,nodeC",
                 "--speeds", "1,1,2", "--ranks", "6", "--rows", "4", "--seed", "7", "/data/set.bin"])[1]
    assert again == out   # the same seed, the same assignment


def test_under_mpiexec_the_job_is_the_default(map_file):
    result = MpiRun()(3, [TOOL, "--hint", f"dli_map_file={map_file}", "/data/set.bin"], piox=False,
                      hosts=["nodeC", "nodeA", "nodeB"], timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("assignment:") == 1   # rank 0 prints
    rows = rank_rows(result.stdout)
    assert [rows[r][0] for r in range(3)] == ["nodeC", "nodeA", "nodeB"]


@pytest.mark.parametrize("args, words", [
    ([], "no FILE"),
    (["a", "b"], "only one FILE"),
    (["--ranks", "0", "f"], "--ranks"),
    (["--speeds", "1,2", "f"], "--speeds needs --hosts"),
    (["--hosts", "a,b", "--speeds", "1", "f"], "1 values for 2 hosts"),
    (["--hosts", "a,,b", "f"], "empty host"),
    (["--speeds", "1,-2", "--hosts", "a,b", "f"], "positive"),
    (["--bogus", "f"], "unknown option"),
    (["--hint", "dli_chunk_size=0", "/etc/hostname"], "dli_chunk_size"),
])
def test_usage_errors_exit_2(args, words):
    code, out, err = run(args)
    assert code == 2 and words in err, (code, err)


def test_storage_errors_exit_1(tmp_path):
    code, out, err = run([tmp_path / "missing"])
    assert code == 1 and "missing: no host sees this file" in err
    bad = tmp_path / "bad.map"
    bad.write_text("dli-map 1\nfile /x\n5 5 a\n")
    code, out, err = run(["--hint", f"dli_map_file={bad}", "/x"])
    assert code == 1 and f"{bad}:3:" in err
