"""Generated programs and shared libraries for parallel loading's tests (issue 17),
modelled on Spindle's own suite: each case is a program whose output says which
libraries it reached, so that a run with piox's load servers can be compared with a
plain run, byte for byte.

build(root) compiles every case under root (gcc/g++, a few seconds) and returns them
by name. Paths inside the cases are relative ($ORIGIN run paths, paths given at run
time), so the tree may be built in one place and run from another, e.g. through the
counting FUSE fixture mounted over it.

  chain       a chain of LIBRARIES libraries, each calling the next (the Pynamic-like
              storm: every process searches and loads each of them)
  origin      a $ORIGIN/../lib run path, whose library finds its own dependency
              through $ORIGIN/../sub
  symlink     a library reached through the symlinks of its SONAME and link name
  cxx         a C++ exception thrown in one library and caught in another
  dlopen      a library outside the program's closure, dlopen'ed at run time
  missing     dlopen of a library that exists nowhere: the usual message
  exec        a program that execs a child, which loads a library of its own
  search      a library found in the last of several LD_LIBRARY_PATH directories
  rpath       a library found through the DT_RPATH of the library that loaded the
              library that needs it (glibc's l_loader chain)
  token       a run path whose first entry holds $LIB, which only the loader expands
  closer      a program that closes every descriptor (as a daemon does), opens sockets
              on the freed numbers, then dlopens: no byte may reach its sockets
  where       a library that reads a data file beside itself, found through its own
              path as dladdr and dl_iterate_phdr name it (as many libraries find their
              plugins and data)
"""
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

LIBRARIES = 100
MISSING = "libpiox-missing.so"
NAMES = ("chain", "origin", "symlink", "cxx", "dlopen", "missing", "exec", "search", "rpath",
         "token", "closer", "where")
# Files a case's process reads itself, besides loading (they grow with the processes).
DATA_OPENS = {"where": 2}


@dataclass(frozen=True)
class Case:
    name: str
    program: str              # relative to the tree's root
    args: tuple = ()          # each "{root}" in them becomes the root
    env: dict = field(default_factory=dict)  # the same
    expected: str = ""        # its whole standard output

    def command(self, root):
        return [str(Path(root) / self.program)] + [a.format(root=root) for a in self.args]

    def environment(self, root):
        return {k: v.format(root=root) for k, v in self.env.items()}


def _compile(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}:\n{done.stderr}")


def _link(path, source, shared=False, language="c", needs=(), runpath=None, rpath=None,
          soname=None, extra=()):
    """Compiles `source` into the program or (shared) library `path`, linked to
    `needs` (library paths), with DT_RUNPATH `runpath` or DT_RPATH `rpath`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    source_path = path.with_name(path.name + (".cpp" if language == "c++" else ".c"))
    source_path.write_text(source)
    argv = ["g++" if language == "c++" else "gcc", "-O1", "-o", str(path), str(source_path),
            *extra]
    if shared:
        argv += ["-shared", "-fPIC", f"-Wl,-soname,{soname or path.name}"]
    for need in needs:
        argv += [f"-L{need.parent}", f"-l:{need.name}"]
    if runpath:
        argv += [f"-Wl,-rpath,{runpath}", "-Wl,--enable-new-dtags"]
    if rpath:
        argv += [f"-Wl,-rpath,{rpath}", "-Wl,--disable-new-dtags"]
    _compile(argv + ([] if shared else ["-ldl"]))
    source_path.unlink()


def _library(path, source, **options):
    _link(path, source, shared=True, **options)


def _program(path, source, **options):
    _link(path, source, **options)


def chain_case(root, libraries, debug=False):
    """lib/libchain{i}.so: chain_i(x) = chain_{i+1}(x + i); the last returns x + i.
    Each library links against the next, so they are built last to first. With
    --clock, main first prints when it began (main_ns=, CLOCK_REALTIME): bench/loading's
    time to main. `debug`: the libraries carry debugging information (gcc -g3), which
    the loader never maps."""
    lib = root / "chain" / "lib"
    paths = [lib / f"libchain{i:03d}.so" for i in range(libraries)]
    for i in reversed(range(libraries)):
        last = i + 1 == libraries
        source = ("" if last else f"int chain_{i + 1}(int);\n") + (
            f"int chain_{i}(int x) {{ return x + {i}; }}\n" if last else
            f"int chain_{i}(int x) {{ return chain_{i + 1}(x + {i}); }}\n")
        _library(paths[i], source, needs=[] if last else [paths[i + 1]], runpath="$ORIGIN",
                 extra=["-g3"] if debug else [])
    _program(root / "chain" / "main",
             '#include <stdio.h>\n#include <string.h>\n#include <time.h>\nint chain_0(int);\n'
             'int main(int argc, char **argv) {\n'
             '    if (argc > 1 && strcmp(argv[1], "--clock") == 0) {\n'
             '        struct timespec t;\n'
             '        clock_gettime(CLOCK_REALTIME, &t);\n'
             '        printf("main_ns=%lld\\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);\n'
             '    }\n'
             '    printf("chain %d\\n", chain_0(0));\n'
             '    return 0;\n'
             '}\n',
             needs=[paths[0]], runpath="$ORIGIN/lib")
    return Case("chain", "chain/main", expected=f"chain {sum(range(libraries))}\n")


def _origin(root):
    """bin/main (run path $ORIGIN/../lib) -> lib/libouter.so (run path $ORIGIN/../sub)
    -> sub/libinner.so."""
    base = root / "origin"
    inner, outer = base / "sub" / "libinner.so", base / "lib" / "libouter.so"
    _library(inner, "int inner(void) { return 7; }\n")
    _library(outer, "int inner(void);\nint outer(void) { return 6 * inner(); }\n",
             needs=[inner], runpath="$ORIGIN/../sub")
    _program(base / "bin" / "main",
             '#include <stdio.h>\nint outer(void);\n'
             'int main(void) { printf("origin %d\\n", outer()); return 0; }\n',
             needs=[outer], runpath="$ORIGIN/../lib")
    return Case("origin", "origin/bin/main", expected="origin 42\n")


def _symlink(root):
    """libsym.so.1.0 reached through libsym.so.1 (its SONAME, a symlink) and linked
    through libsym.so (a symlink to the symlink)."""
    lib = root / "symlink" / "lib"
    real = lib / "libsym.so.1.0"
    _library(real, "const char *sym(void) { return \"real file\"; }\n", soname="libsym.so.1")
    (lib / "libsym.so.1").symlink_to("libsym.so.1.0")
    (lib / "libsym.so").symlink_to("libsym.so.1")
    _program(root / "symlink" / "main",
             '#include <stdio.h>\nconst char *sym(void);\n'
             'int main(void) { printf("symlink %s\\n", sym()); return 0; }\n',
             extra=(f"-L{lib}", "-lsym"), runpath="$ORIGIN/lib")
    return Case("symlink", "symlink/main", expected="symlink real file\n")


def _cxx(root):
    """A std::runtime_error thrown in libthrow.so, caught in libcatch.so."""
    lib = root / "cxx" / "lib"
    thrower, catcher = lib / "libthrow.so", lib / "libcatch.so"
    _library(thrower, '#include <stdexcept>\n'
                      'void throw_it() { throw std::runtime_error("thrown in libthrow"); }\n',
             language="c++")
    _library(catcher, '#include <stdexcept>\n#include <string>\n'
                      'void throw_it();\nstatic std::string caught;\n'
                      'extern "C" const char *catch_it() {\n'
                      '  try { throw_it(); } catch (const std::runtime_error &e) { caught = e.what(); }\n'
                      '  return caught.c_str();\n}\n',
             language="c++", needs=[thrower], runpath="$ORIGIN")
    _program(root / "cxx" / "main",
             '#include <stdio.h>\nconst char *catch_it(void);\n'
             'int main(void) { printf("caught %s\\n", catch_it()); return 0; }\n',
             needs=[catcher], runpath="$ORIGIN/lib")
    return Case("cxx", "cxx/main", expected="caught thrown in libthrow\n")


_DLOPEN_MAIN = r'''#include <dlfcn.h>
#include <stdio.h>
/* dlopen(argv[1]) and call its `plugin`, or print dlerror() */
int main(int argc, char **argv)
{
    void *handle = dlopen(argv[1], RTLD_NOW);
    if (!handle) {
        printf("dlopen failed: %s\n", dlerror());
        return 0;
    }
    int (*plugin)(void) = (int (*)(void))dlsym(handle, "plugin");
    printf("plugin %d\n", plugin ? plugin() : -1);
    dlclose(handle);
    return 0;
}
'''


def _dlopen(root):
    """A plugin outside the program's closure, dlopen'ed by its path; and a library
    that exists nowhere, dlopen'ed by name."""
    _library(root / "dlopen" / "plugins" / "libplugin.so", "int plugin(void) { return 5; }\n")
    _program(root / "dlopen" / "main", _DLOPEN_MAIN)
    return [Case("dlopen", "dlopen/main", ("{root}/dlopen/plugins/libplugin.so",),
                 expected="plugin 5\n"),
            Case("missing", "dlopen/main", (MISSING,),
                 expected=f"dlopen failed: {MISSING}: cannot open shared object file: "
                          "No such file or directory\n")]


def _exec(root):
    """main execs child, which loads libchild.so (run path $ORIGIN/lib)."""
    base = root / "exec"
    _library(base / "lib" / "libchild.so", "int child_value(void) { return 3; }\n")
    _program(base / "child", '#include <stdio.h>\nint child_value(void);\n'
                             'int main(void) { printf("child %d\\n", child_value()); return 0; }\n',
             needs=[base / "lib" / "libchild.so"], runpath="$ORIGIN/lib")
    _program(base / "main", r'''#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char child[4096];
    snprintf(child, sizeof child, "%.*s/child", (int)(strrchr(argv[0], '/') - argv[0]), argv[0]);
    printf("parent\n");
    fflush(stdout);
    execl(child, child, (char *)NULL);
    perror(child);
    return 1;
}
''')
    return Case("exec", "exec/main", expected="parent\nchild 3\n")


def _search(root):
    """libfar.so only in the last of three LD_LIBRARY_PATH directories."""
    base = root / "search"
    for d in ("d1", "d2"):
        (base / d).mkdir(parents=True, exist_ok=True)
    far = base / "d3" / "libfar.so"
    _library(far, "int far(void) { return 9; }\n")
    _program(base / "main", '#include <stdio.h>\nint far(void);\n'
                            'int main(void) { printf("far %d\\n", far()); return 0; }\n',
             needs=[far])
    path = ":".join(f"{{root}}/search/{d}" for d in ("d1", "d2", "d3"))
    return Case("search", "search/main", env={"LD_LIBRARY_PATH": path}, expected="far 9\n")


def _rpath(root):
    """main (DT_RPATH $ORIGIN/a) -> a/libx.so (DT_RPATH $ORIGIN/../b:$ORIGIN/../c) ->
    b/liby.so (no run path) -> c/libz.so, which only libx's DT_RPATH finds: glibc
    searches the DT_RPATH of every object up the chain that loaded the requester."""
    base = root / "rpath"
    libz, liby, libx = base / "c" / "libz.so", base / "b" / "liby.so", base / "a" / "libx.so"
    _library(libz, "int z(void) { return 4; }\n")
    _library(liby, "int z(void);\nint y(void) { return 10 * z(); }\n", needs=[libz])
    _library(libx, "int y(void);\nint x(void) { return 2 + y(); }\n", needs=[liby],
             rpath="$ORIGIN/../b:$ORIGIN/../c")
    _program(base / "main", '#include <stdio.h>\nint x(void);\n'
                            'int main(void) { printf("rpath %d\\n", x()); return 0; }\n',
             needs=[libx], rpath="$ORIGIN/a", extra=[f"-Wl,-rpath-link,{libz.parent}"])
    return Case("rpath", "rpath/main", expected="rpath 42\n")


def _token(root):
    """main -> lib/libw.so (run path $ORIGIN/$LIB:$ORIGIN/../d) -> d/libv.so: a search
    the loader makes itself from a library's $ORIGIN."""
    base = root / "token"
    libv, libw = base / "d" / "libv.so", base / "lib" / "libw.so"
    _library(libv, "int v(void) { return 8; }\n")
    _library(libw, "int v(void);\nint w(void) { return 3 * v(); }\n", needs=[libv],
             runpath="$ORIGIN/$LIB:$ORIGIN/../d")
    _program(base / "main", '#include <stdio.h>\nint w(void);\n'
                            'int main(void) { printf("token %d\\n", w()); return 0; }\n',
             needs=[libw], runpath="$ORIGIN/lib", extra=[f"-Wl,-rpath-link,{libv.parent}"])
    return Case("token", "token/main", expected="token 24\n")


_CLOSER_MAIN = r'''#include <dlfcn.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
/* Closes every descriptor above stderr, opens socket pairs on the freed numbers,
 * dlopens argv[1] and calls its `plugin`, then counts the bytes that reached the
 * pairs. Non-blocking, so that a request written into one does not wait forever
 * for its reply (which a blocking socket would). */
enum { kPairs = 16 };
int main(int argc, char **argv)
{
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    int pairs[kPairs][2];
    for (int i = 0; i < kPairs; i++)
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pairs[i]) != 0)
            return perror("socketpair"), 1;
    void *plugin = dlopen(argv[1], RTLD_NOW);
    if (!plugin)
        return printf("dlopen failed: %s\n", dlerror()), 1;
    int (*value)(void) = (int (*)(void))dlsym(plugin, "plugin");
    long stray = 0;
    for (int i = 0; i < kPairs; i++)
        for (int end = 0; end < 2; end++) {
            char buffer[256];
            ssize_t n;
            while ((n = recv(pairs[i][end], buffer, sizeof buffer, 0)) > 0)
                stray += n;
        }
    printf("plugin %d, stray bytes %ld\n", value(), stray);
    return 0;
}
'''


def _closer(root):
    """The dlopen case's plugin, dlopen'ed after every descriptor was closed."""
    _program(root / "closer" / "main", _CLOSER_MAIN)
    return Case("closer", "closer/main", ("{root}/dlopen/plugins/libplugin.so",),
                expected="plugin 5, stray bytes 0\n")


_WHERE_LIBRARY = r'''#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
/* Prints how=<the first line of ../share/where.txt beside the library's own path>. */
static void print_data(const char *how, const char *library)
{
    char path[4096], line[256] = "(none)";
    const char *slash = strrchr(library, '/');
    snprintf(path, sizeof path, "%.*s/../share/where.txt", slash ? (int)(slash - library) : 1,
             slash ? library : ".");
    FILE *data = fopen(path, "r");
    if (data) {
        if (!fgets(line, sizeof line, data))
            strcpy(line, "(empty)");
        fclose(data);
    }
    line[strcspn(line, "\n")] = '\0';
    printf("%s=%s\n", how, line);
}
static int find_self(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (strstr(info->dlpi_name, "/libwhere.so"))
        *(const char **)found = info->dlpi_name;
    return 0;
}
void where(void)
{
    Dl_info info;
    print_data("dladdr", dladdr((void *)where, &info) ? info.dli_fname : "?");
    const char *name = "?";
    dl_iterate_phdr(find_self, &name);
    print_data("phdr", name);
}
'''


def _where(root):
    """main -> lib/libwhere.so, which reads share/where.txt from its own directory."""
    base = root / "where"
    (base / "share").mkdir(parents=True, exist_ok=True)
    (base / "share" / "where.txt").write_text("beside the library\n")
    library = base / "lib" / "libwhere.so"
    _library(library, _WHERE_LIBRARY)
    _program(base / "main", 'void where(void);\nint main(void) { where(); return 0; }\n',
             needs=[library], runpath="$ORIGIN/lib")
    return Case("where", "where/main", expected="dladdr=beside the library\nphdr=beside the library\n")


def build(root, libraries=LIBRARIES):
    """Builds every case under root; returns them by name."""
    root = Path(root)
    cases = [chain_case(root, libraries), _origin(root), _symlink(root), _cxx(root),
             *_dlopen(root), _exec(root), _search(root), _rpath(root), _token(root),
             _closer(root), _where(root)]
    assert tuple(case.name for case in cases) == NAMES
    return {case.name: case for case in cases}
