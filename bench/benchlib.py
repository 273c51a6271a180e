"""bench/benchlib.py - what the bench drivers share: the MPIs they measure, compiling
a program, one launch of it with a time limit, CPU load beside it, medians and
spreads, the table and the JSON header (machine, MPI versions, libpiox builds).

Standard library only, imported by the drivers in this directory (bench/shared_fp,
bench/atomic), which each keep their own cases, configurations and targets.
"""
import contextlib
import ctypes
import datetime
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
from dataclasses import dataclass

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LAUNCHER = os.path.join(os.path.dirname(BENCH_DIR), "_build", "install", "bin", "piox")

NOISY_SPREAD = 1.3  # rounds whose max/min exceeds this are flagged in the tables
BUSY_WARNING = 0.5  # other runnable tasks, on average, above which timings are suspect


@dataclass(frozen=True)
class Mpi:
    name: str           # as the programs report it ("mpi" in their JSON line)
    compiler: str
    launcher: tuple     # the command before the program; {ranks} is substituted

    def available(self):
        return all(shutil.which(tool) for tool in (self.compiler, self.launcher[0]))

    def command(self, ranks, piox_launcher=None):
        """The launcher's words for `ranks` processes, under piox when given."""
        words = [part.format(ranks=ranks) for part in self.launcher]
        return ([piox_launcher] if piox_launcher else []) + words

    def spread_command(self, ranks, program, hosts, piox_launcher=None):
        """The whole command for `program` (its words) on `ranks` processes presented
        as len(hosts) nodes: consecutive groups of ranks, each with its own
        PIOX_HOSTNAME, which piox takes for the node's name. Hydra's MPMD syntax
        (mpiexec -n 1 -env K V prog : ...): MPICH only."""
        command = [piox_launcher] if piox_launcher else []
        command.append(self.launcher[0])
        for i, host in enumerate(hosts):
            share = ranks // len(hosts) + (1 if i < ranks % len(hosts) else 0)
            command += ([":"] if i else []) + ["-n", str(share), "-env", "PIOX_HOSTNAME", host]
            command += program
        return command


MPICH = Mpi("mpich", "mpicc", ("mpiexec", "-n", "{ranks}"))
OPEN_MPI = Mpi("openmpi", "mpicc.openmpi",
               # As root in a container, on 2 cores: allowed, and 8 ranks may share them.
               ("mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "{ranks}"))


class RunFailed(Exception):
    pass


def default_launcher():
    return DEFAULT_LAUNCHER if os.path.exists(DEFAULT_LAUNCHER) else shutil.which("piox")


def parse_list(convert):
    """An argparse type: comma-separated items, each converted."""
    return lambda text: [convert(item) for item in text.split(",") if item]


def runnable_elsewhere():
    """Tasks running or ready to run right now, this driver excepted. Sampled between
    runs, when no process of ours is running, it tells how busy others keep the cpus
    (the load average would count our own 8-rank runs too)."""
    with open("/proc/loadavg") as loadavg:
        return int(loadavg.read().split()[3].split("/")[0]) - 1


def compile_program(mpi, source, build_dir, tool):
    """Builds `source` with `mpi`'s compiler into build_dir; exits on failure."""
    return compile_with(mpi.compiler, source, build_dir, tool, suffix=mpi.name)


def compile_with(compiler, source, build_dir, tool, suffix=None, flags=()):
    """Builds `source` with `compiler` (and `flags`) into build_dir, named after the
    source (plus ".suffix"); exits on failure."""
    name = os.path.splitext(os.path.basename(source))[0] + (f".{suffix}" if suffix else "")
    binary = os.path.join(build_dir, name)
    command = [compiler, "-O2", "-Wall", *flags, "-o", binary, source]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{tool}: {' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return binary


def run_program(command, timeout, env=None, discard_stdout=False):
    """Launches command, waits at most `timeout` seconds. Returns (exit status,
    stdout, stderr, the last JSON line of stdout or None). A run that hangs is
    killed with every process it started, and raises RunFailed. discard_stdout
    sends stdout to /dev/null (as `command >/dev/null` would): for timing programs
    that print a lot, which a pipe to this process would slow down."""
    # Its own session, so that a hung run can be killed with every MPI process in it.
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL if discard_stdout else subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env=env, errors="replace")
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise RunFailed(f"{' '.join(command)}: no result after {timeout:.0f} s\n"
                        f"{stdout or ''}{stderr}")
    except BaseException:  # Ctrl-C, SIGTERM: the run's own session would outlive us
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    stdout = stdout or ""
    measured = None
    for line in stdout.splitlines():
        if line.startswith("{"):
            try:
                measured = json.loads(line)
            except ValueError:
                pass
    return process.returncode, stdout, stderr, measured


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent():
    """In a child, before exec: the kernel kills it when the driver dies, even by
    SIGKILL, where no finally clause runs."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: the finally clause of cpu_load still kills them


@contextlib.contextmanager
def cpu_load(processes):
    """`processes` CPU-bound shell loops run beside the block, killed and reaped when
    it ends, however it ends. Each has a session (and process group) of its own: with
    the kernel's autogroup scheduling (Debian's default) a session is one scheduling
    entity, so N loops weigh as N processes, as MPICH's ranks (each setsid) do."""
    started = []
    try:
        for _ in range(processes):
            started.append(subprocess.Popen(
                ["/bin/sh", "-c", "while :; do :; done"], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=_die_with_parent))
        yield started
    finally:
        for process in started:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in started:
            process.wait()


def exit_on_signals():
    """SIGTERM and SIGHUP end the driver as Ctrl-C does, through its finally clauses
    (which stop the load and the run in progress), not at once."""
    def leave(number, _frame):
        raise SystemExit(128 + number)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, leave)


def median(values):
    return statistics.median(values) if values else None


def spread(values):
    """max/min of the runs; None with fewer than two (or a zero)."""
    if len(values) < 2 or min(values) <= 0:
        return None
    return max(values) / min(values)


def noisy(values):
    return len(values) > 1 and max(values) > NOISY_SPREAD * min(values)


def format_us(value):
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def format_ratio(value):
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def print_columns(headings, rows, left):
    """An aligned table: the first `left` columns left-aligned, the rest (numbers)
    right-aligned."""
    widths = [max(len(line[i]) for line in [headings] + rows) for i in range(len(headings))]
    for line in [headings] + rows:
        print("  ".join(text.ljust(w) if i < left else text.rjust(w)
                        for i, (text, w) in enumerate(zip(line, widths))).rstrip())


def busy_summary(busy):
    """(mean, max) of the runnable_elsewhere samples."""
    return (statistics.mean(busy) if busy else 0), max(busy, default=0)


def libpiox_builds(launcher):
    """Which libpiox builds were measured (modification times), should they change."""
    if os.environ.get("PIOX_LIBRARY"):  # the launcher preloads it for every MPI
        return {"PIOX_LIBRARY": os.environ["PIOX_LIBRARY"]}
    libdir = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(launcher))), "lib")
    builds = {}
    for name, path in (("mpich", "libpiox.so"), ("openmpi", "openmpi/libpiox.so")):
        path = os.path.realpath(os.path.join(libdir, path))
        if os.path.exists(path):
            modified = datetime.datetime.fromtimestamp(os.path.getmtime(path)).astimezone()
            builds[name] = {"path": path, "modified": modified.isoformat(timespec="seconds")}
    return builds


def mpi_versions():
    found = {}
    for name, command in (("mpich", ["mpichversion"]), ("openmpi", ["ompi_info", "-V"])):
        if shutil.which(command[0]):
            text = subprocess.run(command, capture_output=True, text=True).stdout
            found[name] = " ".join(text.split()[:6])
    return found


def report_header(launcher, args):
    """The start of a driver's JSON report: when, where, with what."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
        "mpi": mpi_versions(),
        "libpiox": libpiox_builds(launcher),
        "options": {k: v for k, v in vars(args).items() if k != "json"},
    }
