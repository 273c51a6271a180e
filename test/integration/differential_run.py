"""Runs differential cases (differential_cases.py) through test/programs/differential
in each configuration, and judges piox's results against the standard and stock ROMIO.

Configurations (all `mpiexec -n 2`, MPICH):
  stock               no preload, a /tmp directory
  stock-atomic        the same, every case in atomic mode
  piox                libpiox preloaded, defaults, /tmp
  piox-lockless       preloaded, PIOX_LOCKLESS=yes, /tmp
  piox-lockless-fuse  preloaded, on the lockless FUSE fixture
  piox-atomic         preloaded, every case in atomic mode, /tmp
  romio-plain         no libpiox: the unpatched standalone ROMIO preloaded instead
                      (scripts/build-romio --plain), ufs, /tmp
  romio-plain-atomic  the same, every case in atomic mode
  romio-ad_piox       the patched standalone ROMIO preloaded (scripts/build-romio: the
                      ad_piox driver, issue 15), every file through ad_piox
                      (ROMIO_FSTYPE_FORCE=piox:), /tmp
  romio-ad_piox-atomic  the same, every case in atomic mode
Each configuration's anchor is the stock configuration of the same atomicity, the
standalone ROMIOs' too: with patch 0012 the standalone build answers as the ROMIO
inside libmpich, with or without ad_piox, but for the case its corpus knows (a
hang that stock has too).
A case that sets atomic mode itself (atomic=1) runs alike with and without --atomic:
stock-atomic and piox-atomic take its result from stock and piox (Config.plain).
The same under Open MPI (mpirun.openmpi -n 2, OMPIO, the libpiox built for it):
  openmpi-stock, openmpi-stock-atomic, openmpi-piox-lockless,
  openmpi-piox-lockless-fuse, openmpi-piox-atomic.

Verdicts per case and piox configuration, from byte-by-byte comparison of the file,
the buffers, the counts and the positions:
  ok         piox matches the standard
  inherited  piox differs from the standard exactly as stock ROMIO does: in each
             field where piox deviates, stock deviates the same way
  worse      piox differs where stock is right, or differently from stock, or
             hangs or dies where stock does not
  skip       not applicable: the case is invalid or the harness could not run it,
             or stock hung or died on it
"""
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace

import differential_cases

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "peer"))
import romio_builds  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PIOX_BUILD_DIR", os.path.join(REPO, "_build", "mpich"))
LIBPIOX = os.path.join(BUILD, "pmpi_shim", ".libs", "libpiox.so")
PROGRAM = os.path.join(BUILD, "test", "programs", "differential")
LOCKLESS_FS = os.path.join(BUILD, "test", "fixtures", "lockless_fs", "piox-lockless-fs")

COMPARED = ("err", "file", "buf", "count", "bytes", "pos")
# the fields that say how a run deviates, for each "bad:" name of the program: for
# the file and the buffers where they differ from the standard, not their bytes
# (the garbage that ROMIO leaves differs from run to run)
BAD_FIELDS = {"file": ("filediff",), "buf": ("bufdiff",), "count": ("count", "bytes"),
              "pos": ("pos",), "err": ("err",)}
# the program's per-rank bits (bad=) for the fields of one rank
RANK_BITS = {"bufdiff": 2, "count": 4, "bytes": 4, "pos": 8, "err": 16}


@dataclass(frozen=True)
class Config:
    name: str
    piox: bool
    atomic: bool = False
    env: tuple = ()
    fuse: bool = False
    anchor: str = None
    open_mpi: bool = False
    # The same configuration without --atomic. A case with atomic=1 sets atomic mode
    # itself and runs alike in both: run_all runs it there only.
    plain: str = None

    @property
    def judged(self):
        """A configuration under test (piox's, or a standalone ROMIO's), judged against
        its anchor (stock of the same atomicity); stock itself is judged against the
        standard only."""
        return self.anchor is not None


# The standalone ROMIOs (scripts/build-romio), preloaded into the stock program
# (issue 15's preload mode): the unpatched one, and the patched one with every file
# on the ad_piox driver.
ROMIO_PLAIN = (("LD_PRELOAD", str(romio_builds.libromio(romio_builds.PLAIN_PREFIX))),)
ROMIO_AD_PIOX = (("LD_PRELOAD", str(romio_builds.libromio(romio_builds.PATCHED_PREFIX))),
                 ("ROMIO_FSTYPE_FORCE", "piox:"))
KNOWN_OMPIO_HANGS = (("DIFFERENTIAL_KNOWN_SHORT_READ_HANG", "1"),)
CONFIGS = {c.name: c for c in [
    Config("stock", piox=False),
    Config("stock-atomic", piox=False, atomic=True, plain="stock"),
    Config("piox", piox=True, anchor="stock"),
    Config("piox-lockless", piox=True, env=(("PIOX_LOCKLESS", "yes"),), anchor="stock"),
    Config("piox-lockless-fuse", piox=True, fuse=True, anchor="stock"),
    Config("piox-atomic", piox=True, atomic=True, anchor="stock-atomic", plain="piox"),
    # Collective reads as piox's two-phase aggregate reads: local files, in chunks of an
    # odd size (a prime) so that pieces split inside views' blocks; every chunk local
    # everywhere.
    Config("piox-aggregate", piox=True, anchor="stock",
           env=(("PIOX_LOCALITY", "aggregate"), ("PIOX_DLI_CHUNK_SIZE", "1031"))),
    # The standalone ROMIOs: ROMIO's generic routines move the data, on fcntl locks
    # (plain) or on piox's (ad_piox, whose ROMIO also has patch 0011: an access that
    # fits the sieve buffer, nearly every case here, is sieved in one pass).
    Config("romio-plain", piox=False, env=ROMIO_PLAIN, anchor="stock"),
    Config("romio-plain-atomic", piox=False, atomic=True, env=ROMIO_PLAIN,
           anchor="stock-atomic", plain="romio-plain"),
    Config("romio-ad_piox", piox=False, env=ROMIO_AD_PIOX, anchor="stock"),
    Config("romio-ad_piox-atomic", piox=False, atomic=True, env=ROMIO_AD_PIOX,
           anchor="stock-atomic", plain="romio-ad_piox"),
    # OMPIO hangs in every nonblocking or split read that reaches the end of file: the
    # program says "hang" for those without running them (differential.c,
    # known_short_read_hang), which saves a launch each.
    Config("openmpi-stock", piox=False, open_mpi=True, env=KNOWN_OMPIO_HANGS),
    Config("openmpi-stock-atomic", piox=False, atomic=True, open_mpi=True, env=KNOWN_OMPIO_HANGS,
           plain="openmpi-stock"),
    Config("openmpi-piox-lockless", piox=True, env=(("PIOX_LOCKLESS", "yes"),),
           anchor="openmpi-stock", open_mpi=True),
    Config("openmpi-piox-lockless-fuse", piox=True, fuse=True, anchor="openmpi-stock",
           open_mpi=True),
    Config("openmpi-piox-atomic", piox=True, atomic=True, anchor="openmpi-stock-atomic",
           open_mpi=True),
]}
MPICH_CONFIGS = [name for name, c in CONFIGS.items() if not c.open_mpi]
OPEN_MPI_CONFIGS = [name for name, c in CONFIGS.items() if c.open_mpi]
PIOX_CONFIGS = [c for c in CONFIGS.values() if c.judged and not c.open_mpi]
OPEN_MPI_PIOX_CONFIGS = [c for c in CONFIGS.values() if c.judged and c.open_mpi]


@dataclass
class Result:
    """One case in one configuration: the program's fields, or status
    hang / died / missing when it printed no line."""
    status: str                      # "ran", "invalid", "harness", "hang", "died",
                                     # "unrun" (stock hung or died: run_all)
    fields: dict = field(default_factory=dict)
    bad: frozenset = frozenset()     # fields that differ from the standard
    line: str = ""
    # The same case's results in earlier runs (recheck_worse), newest first: stock ROMIO
    # answers some cases differently from run to run (two processes' conflicting writes
    # land in either order), and piox is no worse when it deviates as any run of stock.
    earlier: list = field(default_factory=list)
    # Ranks that write in the case (2 for a spread write, else 1; run_config sets it).
    # Their views are disjoint, but where stock ROMIO writes the file wrong it may write
    # them over each other, and then stock's file is a race's outcome (s20240614-2580).
    writers: int = 1

    @property
    def ran(self):
        return self.status == "ran"


class Mpiexec:
    """MPICH's mpiexec, as conftest.MpiRun builds its command (for the bench script,
    which runs without pytest)."""

    def __init__(self, library=LIBPIOX):
        self.library = library

    def command(self, n, argv, piox=True, env=None):
        settings = dict(env or {})
        if piox:
            settings["LD_PRELOAD"] = str(self.library)
        cmd = ["mpiexec"]
        for key, value in settings.items():
            cmd += ["-genv", key, str(value)]
        return cmd + ["-n", str(n)] + [str(a) for a in argv]


def parse_line(line):
    words = line.split()
    if words[1:2] == ["hang"]:  # the program's own watchdog, or a hang it knows of
        return words[0], Result("hang", line=line)
    case_id, fields = words[0], {}
    for word in words[1:]:
        key, _, value = word.partition("=")
        fields[key] = value
    if "harness" in fields or "invalid" in fields:
        status = "harness" if "harness" in fields else "invalid"
        return case_id, Result(status, fields, line=line)
    if "verdict" not in fields:  # cut short: the job died while printing it
        return case_id, Result("died", line=line)
    verdict = fields["verdict"]
    bad = frozenset()
    if verdict.startswith("bad:"):
        names = verdict[4:].split(",")
        if not all(name in BAD_FIELDS for name in names):  # cut short, then run on
            return case_id, Result("died", line=line)
        bad = frozenset(f for name in names for f in BAD_FIELDS[name])
    return case_id, Result("ran", fields, bad, line)


# How long one case may take before the program's watchdog calls it hung: short in
# a run of many cases (ROMIO hangs in a few per hundred), long to confirm a hang and
# for a large case (a count past LARGE_COUNT: megabytes, and the oracle's walk of
# them); the large cases run together, in a launch of their own.
CASE_MS, CONFIRM_MS = 400, 10000
LARGE_COUNT = 100000

# Where ROMIO 4.0.2 deviates by copying bytes it never set into the user's buffer (a
# sieve buffer's tail past the end of file), those bytes are whatever the heap held,
# so which of them differ from the standard's answer, and with it whether piox
# deviates "as stock", changed from run to run (eof-1: worse in 5 configurations in
# a run of 72 cases, in none when they ran again with it set). With MALLOC_PERTURB_
# set, glibc fills every block malloc hands out with one byte: the same stale bytes
# in every run and configuration. Only the reruns of worse cases set it
# (recheck_worse): for every run it would double test_differential's time (memsets
# of ROMIO's 4 and 16 MiB buffers at each access).
STALE_MEMORY = (("MALLOC_PERTURB_", "165"),)


def _launch(mpirun, program, config, lines, directory, timeout, case_ms):
    """One mpiexec: (results by id, how it ended: ok / hang / died)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cases", delete=False) as cases:
        cases.write("\n".join(lines) + "\n")
    argv = [program, cases.name, directory] + (["--atomic"] if config.atomic else [])
    command = mpirun.command(2, argv, piox=config.piox,
                             env={**dict(config.env), "DIFFERENTIAL_CASE_MS": case_ms})
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    # its own session, so that a hung run is killed with every process it started
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, errors="replace",
                               start_new_session=True, env=env)
    ending = "ok"
    try:
        stdout, _ = process.communicate(timeout=timeout)
        if process.returncode != 0:
            ending = "died"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
        ending = "hang"
    finally:
        os.unlink(cases.name)
    results, ids = {}, {line.split(" ", 1)[0][3:] for line in lines}
    for line in stdout.splitlines():
        if line.split(" ", 1)[0] in ids:  # not mpiexec's own words about a failed job
            case_id, result = parse_line(line)
            if result.status != "died":  # a line cut short: the case runs again
                results[case_id] = result
    return results, ending


def run_config(mpirun, program, config, cases, directory, per_launch=400, confirm=(),
               unrun=None):
    """Results by case id for `cases` (dicts) in `config`. When a launch ends early
    (a case hung, and the program's watchdog ended it; or the job died), the cases
    it did not finish are rerun: all together when the watchdog named the case that
    hung (it printed "ID hang"), else the first of them alone, to find the culprit,
    then the rest. A hang of a case whose id is in `confirm` is confirmed alone with a
    long watchdog (a busy machine must not make piox look hung). Cases whose id is in
    `unrun` (by id: why) are not run: Result("unrun")."""
    results = {i: Result("unrun", line=why) for i, why in (unrun or {}).items()}
    cases = [c for c in cases if c["id"] not in results]
    large = [c for c in cases if int(c["count"]) > LARGE_COUNT]
    cases = [c for c in cases if int(c["count"]) <= LARGE_COUNT]
    # (cases, watchdog in ms) a launch
    pending = [(cases[i:i + per_launch], CASE_MS) for i in range(0, len(cases), per_launch)]
    if large:
        pending.append((large, CONFIRM_MS))
    while pending:
        group, case_ms = pending.pop(0)
        # the timeout is a backstop: the program's watchdog ends a hung case
        got, ending = _launch(mpirun, program, config,
                              [differential_cases.case_line(c) for c in group], directory,
                              timeout=60 + len(group) * (0.2 if case_ms == CASE_MS else 60),
                              case_ms=case_ms)
        named = any(result.status == "hang" for result in got.values())
        for case in group:
            if (case_ms < CONFIRM_MS and case["id"] in confirm
                    and got.get(case["id"], Result("ran")).status == "hang"):
                got.update(_launch(mpirun, program, config,
                                   [differential_cases.case_line(case)], directory,
                                   timeout=60, case_ms=CONFIRM_MS)[0])
            # The large cases too: where the anchor writes the file wrong, which wrong
            # file comes out is the race's (large-2: the standalone ROMIOs, with and
            # without ad_piox, each write a different one from run to run).
            if (case["id"] in got and str(case.get("spread")) == "1"
                    and "write" in case["op"]):
                got[case["id"]].writers = 2
        results.update(got)
        missing = [c for c in group if c["id"] not in got]
        if not missing:
            continue
        if len(group) == 1:
            results[group[0]["id"]] = Result("died" if ending == "ok" else ending, line=ending)
        elif named:  # the watchdog named the case that hung: the rest go on together
            pending[:0] = [(missing, case_ms)]
        else:
            pending[:0] = [(part, case_ms) for part in (missing[:1], missing[1:]) if part]
    return results


def _deviates_as(piox, stock, name):
    """Where piox deviates in field `name`, stock deviates the same way: the file as
    a whole; per rank for the rest (piox may be right where stock is not)."""
    if name not in RANK_BITS:
        return name in stock.bad and piox.fields.get(name) == stock.fields.get(name)
    mine, theirs = piox.fields[name].split(","), stock.fields[name].split(",")
    mine_bad = [int(b) for b in piox.fields["bad"].split(",")]
    theirs_bad = [int(b) for b in stock.fields["bad"].split(",")]
    return all(not mine_bad[r] & RANK_BITS[name] or
               (theirs_bad[r] & RANK_BITS[name] and _same_way(name, mine[r], theirs[r]))
               for r in range(len(mine)))


def _same_way(name, mine, theirs):
    """A buffer deviates in two ways: the bytes the read should fill (a hash of where
    they are wrong) and bytes it should not touch (+1); piox deviates as stock when
    each of its two is right or stock's."""
    if name != "bufdiff":
        return mine == theirs
    inside, stray = mine.split("+")
    their_inside, their_stray = theirs.split("+")
    return (int(inside, 16) == 0 or inside == their_inside) and stray <= their_stray


def verdict(piox, stock):
    """ok / inherited / worse / skip for one case, with a short reason: against stock's
    latest run, else against any earlier run of stock (Result.earlier)."""
    judged = _verdict_against(piox, stock)
    if judged[0] != "worse" or stock is None:
        return judged
    for earlier in stock.earlier:
        again = _verdict_against(piox, earlier)
        if again[0] in ("ok", "inherited"):
            return again[0], again[1] + " (as an earlier run of stock)"
    return judged


def _verdict_against(piox, stock):
    if piox.status in ("invalid", "harness", "unrun"):
        return "skip", piox.status
    if not piox.ran:
        if stock is None or not stock.ran:
            return "skip", f"stock {stock.status if stock else 'missing'}"
        return "worse", f"piox {piox.status}"
    if not piox.bad:
        return "ok", ""
    if stock is None or not stock.ran:
        return "skip", f"stock {stock.status if stock else 'missing'}"
    same = all(piox.fields.get(f) == stock.fields.get(f) for f in COMPARED)
    if same or all(_deviates_as(piox, stock, f) for f in piox.bad):
        return "inherited", ",".join(sorted(piox.bad))
    # Two writers and a file stock writes wrong: which of stock's wrong files comes
    # out depends on the order of the ranks' writes, so only "wrong too" compares.
    racy = {"filediff"} if piox.writers > 1 and "filediff" in stock.bad else set()
    if racy and all(_deviates_as(piox, stock, f) for f in piox.bad - racy):
        return "inherited", ",".join(sorted(piox.bad)) + " (stock's file: a race, wrong too)"
    return "worse", ",".join(sorted(piox.bad)) + (
        f" (stock: {','.join(sorted(stock.bad))})" if stock.bad else " (stock: ok)")


def judge(results):
    """results: {config name: {id: Result}}. Returns {config name: {id: (verdict,
    reason)}} for the piox configurations run, and for the anchors the verdict of
    stock against the standard (ok / deviates / skip)."""
    judged = {}
    for name, by_id in results.items():
        config = CONFIGS[name]
        if config.judged:
            anchor = results.get(config.anchor, {})
            judged[name] = {i: verdict(r, anchor.get(i)) for i, r in by_id.items()}
        else:
            judged[name] = {i: ("skip", r.status) if not r.ran else
                            ("ok", "") if not r.bad else ("deviates", ",".join(sorted(r.bad)))
                            for i, r in by_id.items()}
    return judged


def recheck_worse(mpirun, program, cases, directories, results, tries=2):
    """Reruns each worse case with its anchor, up to `tries` times, and keeps the
    verdict of the last run: a case stays worse only when every run says so (some
    of ROMIO's deviations, its write sieving's, vary from run to run). The reruns
    fill the heap's fresh blocks alike (STALE_MEMORY). The anchor's earlier results
    stay with its new ones (Result.earlier), for verdict."""
    by_id = {c["id"]: c for c in cases}
    for name in [n for n, c in CONFIGS.items() if c.judged and n in results]:
        config = CONFIGS[name]
        for _ in range(tries):
            judged = judge({name: results[name], config.anchor: results[config.anchor]})
            worse = [by_id[i] for i, (v, _) in judged[name].items() if v == "worse"]
            if not worse:
                break
            for conf in (config.anchor, name):
                steady = replace(CONFIGS[conf], env=CONFIGS[conf].env + STALE_MEMORY)
                rerun = run_config(mpirun, program, steady, worse,
                                   str(directories["fuse" if CONFIGS[conf].fuse else "tmp"]))
                if conf == config.anchor:
                    for case_id, result in rerun.items():
                        before = results[conf].get(case_id)
                        if before is not None:
                            result.earlier = [before] + before.earlier
                results[conf].update(rerun)
    return results


def anchor_depth(name):
    """How many anchors stand behind a configuration: 0 for stock, 1 for what is
    judged against stock (every configuration today), and so on, so that an anchor
    always runs before what it anchors."""
    anchor = CONFIGS[name].anchor
    return 0 if anchor is None else 1 + anchor_depth(anchor)


def run_all(mpirun, program, cases, directories, configs=None):
    """Runs every configuration (names; default MPICH's) over cases with mpirun and
    program (of the configurations' MPI). directories maps "tmp" and "fuse" to
    directories. Returns the raw results by configuration."""
    names = configs or MPICH_CONFIGS
    results = {}
    for name in sorted(names, key=anchor_depth):  # anchors before what they anchor
        config = CONFIGS[name]
        anchor = results.get(config.anchor, {})
        # An atomic=1 case that ran in the plain twin keeps that result: --atomic would
        # run the very same thing again.
        plain = results.get(config.plain, {})
        from_plain = {c["id"] for c in cases if int(c.get("atomic", 0)) and c["id"] in plain}
        # A case that hung or died in stock gets no verdict whatever piox does
        # (verdict: skip), and each such case costs a launch or two: not run.
        results[name] = run_config(
            mpirun, program, config, [c for c in cases if c["id"] not in from_plain],
            str(directories["fuse" if config.fuse else "tmp"]),
            confirm={i for i, r in anchor.items() if r.ran},
            unrun={i: f"not run: stock {r.status}" for i, r in anchor.items()
                   if r.status in ("hang", "died")})
        results[name].update({i: replace(plain[i]) for i in from_plain})
    return results


def family(case, piox, stock):
    """A short name for how piox is worse on a case, to group cases: the access and
    the fields in which piox deviates otherwise than stock."""
    op = case["op"]
    pointer = ("explicit offset" if "_at" in op else
               "shared pointer" if "shared" in op or "ordered" in op else "individual pointer")
    if not piox.ran:
        what = piox.status
    else:
        what = ",".join(sorted(f for f in piox.bad if stock is None or not stock.ran
                               or not _deviates_as(piox, stock, f)))
    return f"{'write' if 'write' in op else 'read'} at the {pointer}: {what}"
