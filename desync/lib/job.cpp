// job.cpp - parsing the desync_* hints. Grammar (desync(3)):
//   desync_files   ID:VERSIONS:E1xE2... [; ID:VERSIONS:E1x...]   (required)
//   desync_chunks  bisect | bisect:W0,W1,... (one weight per process) | grid:A1xA2...
//   desync_window  1 .. 1000 (default 4)
//   desync_rebalance  versions per lease period, 0 (default: one period) or more
//   desync_balance    misses (the paper's, default) | throughput
//   desync_replicate  versions between replicas to the buddy, 0 (default: none) or more
//   desync_loss_timeout  seconds without a report before a process is lost (default 10)
//   desync_test_stop  RANK:VERSION[:SECONDS], a test's logical crash (NOTES.md 2.6)
//   desync_checkpoint PATH, with desync_checkpoint_block BYTES (the largest block)
//   desync_test_abort RANK:VERSION, a test's crash of the whole job
//   desync_test_late_records RANK, a test's process the map's records reach late
#include "job.h"

#include "desync.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace desync {

long long FileShape::blocks_per_version() const
{
    long long n = 1;
    for (int e : extent)
        n *= e;
    return n;
}

const FileShape *Job::file(int id) const
{
    for (const FileShape &f : files)
        if (f.id == id)
            return &f;
    return nullptr;
}

std::string Job::canonical() const
{
    std::string s;
    for (const FileShape &f : files) {
        s += std::to_string(f.id) + ":" + std::to_string(f.versions);
        for (int e : f.extent)
            s += "x" + std::to_string(e);
        s += ";";
    }
    s += layout.kind == LayoutSpec::Grid ? "grid" : "bisect";
    for (int g : layout.grid)
        s += "," + std::to_string(g);
    for (double w : layout.weights)
        s += "," + std::to_string(w);
    return s + ";" + std::to_string(window) + ";" + std::to_string(rebalance) + ";" + std::to_string(balance) +
           ";" + std::to_string(replicate) + ";" + std::to_string(loss_timeout) + ";" + std::to_string(stop.rank) +
           ":" + std::to_string(stop.version) + ":" + std::to_string(stop.pause) + ";" + checkpoint +
           ";" + std::to_string(checkpoint_block) + ";" + std::to_string(abort.rank) + ":" +
           std::to_string(abort.version) + ";" + std::to_string(late_records);
}

std::string Job::checkpoint_identity() const
{
    std::string s = "desync checkpoint 1;";
    for (const FileShape &f : files) {
        s += std::to_string(f.id) + ":" + std::to_string(f.versions);
        for (int e : f.extent)
            s += "x" + std::to_string(e);
        s += ";";
    }
    return s + std::to_string(replicate) + ";" + std::to_string(checkpoint_block);
}

namespace {

std::vector<std::string> split(const std::string &text, char sep)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t at = text.find(sep, start);
        parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            return parts;
        start = at + 1;
    }
}

bool parse_int(const std::string &text, long low, long high, int *out)
{
    if (text.empty() || text[0] == ' ' || text[0] == '+')
        return false;
    errno = 0;
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (errno || *end || value < low || value > high)
        return false;
    *out = static_cast<int>(value);
    return true;
}

// Seconds as a finite decimal number ("0.5", "10").
bool parse_seconds(const std::string &text, double *out)
{
    if (text.empty() || text[0] == ' ' || text[0] == '+')
        return false;
    errno = 0;
    char *end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (errno || *end || !std::isfinite(value))
        return false;
    *out = value;
    return true;
}

// "E1xE2..." into positive integers, 1 to DESYNCH_MAX_DIMS - 2 of them.
bool parse_extents(const std::string &text, std::vector<int> *out)
{
    out->clear();
    for (const std::string &part : split(text, 'x')) {
        int value;
        if (!parse_int(part, 1, INT_MAX, &value))
            return false;
        out->push_back(value);
    }
    return !out->empty() && out->size() <= DESYNCH_MAX_DIMS - 2;
}

bool parse_files(const std::string &text, Job *job, std::string *why)
{
    std::set<int> ids;
    for (const std::string &entry : split(text, ';')) {
        std::vector<std::string> fields = split(entry, ':');
        FileShape f;
        if (fields.size() != 3 || !parse_int(fields[0], 0, INT_MAX, &f.id) ||
            !parse_int(fields[1], 1, INT_MAX, &f.versions) || !parse_extents(fields[2], &f.extent)) {
            *why = "desync_files=\"" + text + "\": expected ID:VERSIONS:E1xE2... entries separated by ';'";
            return false;
        }
        if (!ids.insert(f.id).second) {
            *why = "desync_files: file " + fields[0] + " is described twice";
            return false;
        }
        double blocks = 1;
        for (int e : f.extent)
            blocks *= e;
        if (blocks > INT_MAX) {
            *why = "desync_files: file " + fields[0] + " has more than 2^31 blocks per version";
            return false;
        }
        job->files.push_back(f);
    }
    return true;
}

bool parse_chunks(const std::string &text, int processes, Job *job, std::string *why)
{
    LayoutSpec &l = job->layout;
    std::string bad = "desync_chunks=\"" + text + "\": ";
    if (text == "bisect") {
        l.kind = LayoutSpec::Bisect;
        return true;
    }
    if (text.rfind("bisect:", 0) == 0) {
        l.kind = LayoutSpec::Bisect;
        for (const std::string &w : split(text.substr(7), ',')) {
            char *end = nullptr;
            errno = 0;
            double value = w.empty() ? 0 : std::strtod(w.c_str(), &end);
            if (w.empty() || errno || *end || !(value > 0) || !std::isfinite(value)) {
                *why = bad + "weights must be positive numbers";
                return false;
            }
            l.weights.push_back(value);
        }
        if (static_cast<int>(l.weights.size()) != processes) {
            *why = bad + "one weight per process is needed (" + std::to_string(processes) + ")";
            return false;
        }
        return true;
    }
    if (text.rfind("grid:", 0) == 0) {
        l.kind = LayoutSpec::Grid;
        long long product = 1;
        if (!parse_extents(text.substr(5), &l.grid)) {
            *why = bad + "expected grid:A1xA2... with positive integers";
            return false;
        }
        for (int g : l.grid)
            product *= g;
        if (product != processes) {
            *why = bad + "the parts multiply to " + std::to_string(product) + ", not the " +
                   std::to_string(processes) + " processes";
            return false;
        }
        return true;
    }
    *why = bad + "expected bisect, bisect:W0,W1,... or grid:A1xA2...";
    return false;
}

bool read_hint(MPI_Info info, const char *key, std::string *value)
{
    int length = 0, found = 0;
    MPI_Info_get_valuelen(info, key, &length, &found);
    if (!found)
        return false;
    std::string text(static_cast<size_t>(length) + 1, '\0');
    MPI_Info_get(info, key, length + 1, &text[0], &found);
    text.resize(std::strlen(text.c_str()));
    *value = text;
    return true;
}

// desync_test_stop: RANK:VERSION[:SECONDS]. Rank 0 holds the map, which is not
// replicated, so it cannot be the one stopped.
bool parse_stop(const std::string &text, int processes, Job *job, std::string *why)
{
    std::vector<std::string> fields = split(text, ':');
    Job::Stop &stop = job->stop;
    if ((fields.size() != 2 && fields.size() != 3) || !parse_int(fields[0], 1, processes - 1, &stop.rank) ||
        !parse_int(fields[1], 0, INT_MAX, &stop.version) ||
        (fields.size() == 3 && (!parse_seconds(fields[2], &stop.pause) || stop.pause < 0))) {
        *why = "desync_test_stop=\"" + text + "\": expected RANK:VERSION[:SECONDS], RANK from 1 to " +
               std::to_string(processes - 1) + " (rank 0 holds the map)";
        stop = Job::Stop();
        return false;
    }
    if (job->replicate == 0) {
        *why = "desync_test_stop needs desync_replicate: a lost process's blocks could not be made again";
        return false;
    }
    for (const FileShape &f : job->files)
        if (stop.version >= f.versions - 1) {
            *why = "desync_test_stop=\"" + text + "\": the version must come before file " + std::to_string(f.id) +
                   "'s last (" + std::to_string(f.versions - 1) + "): a process that is done has nothing to lose";
            return false;
        }
    return true;
}

// desync_checkpoint=PATH with desync_checkpoint_block=BYTES; desync_test_abort and
// desync_test_late_records.
bool parse_checkpoint(MPI_Info info, int processes, Job *job, std::string *why)
{
    std::string text;
    if (read_hint(info, "desync_checkpoint_block", &text)) {
        int bytes = 0;
        if (!parse_int(text, 1, INT_MAX, &bytes)) {
            *why = "desync_checkpoint_block=\"" + text + "\": expected the largest block's size in bytes";
            return false;
        }
        job->checkpoint_block = bytes;
    }
    if (read_hint(info, "desync_checkpoint", &text)) {
        if (text.empty()) {
            *why = "desync_checkpoint: expected a file name";
            return false;
        }
        job->checkpoint = text;
        if (job->replicate == 0 || job->checkpoint_block == 0) {
            *why = "desync_checkpoint needs desync_replicate (which versions are written) and "
                   "desync_checkpoint_block (the largest block's bytes: blocks sit at fixed offsets)";
            return false;
        }
        for (const FileShape &f : job->files)
            if (f.versions != job->files[0].versions) {
                *why = "desync_checkpoint: every file must have the same number of versions (a restart "
                       "resumes them all from one version)";
                return false;
            }
    } else if (job->checkpoint_block) {
        *why = "desync_checkpoint_block without desync_checkpoint";
        return false;
    }
    if (read_hint(info, "desync_test_abort", &text)) {
        std::vector<std::string> fields = split(text, ':');
        if (fields.size() != 2 || !parse_int(fields[0], 0, processes - 1, &job->abort.rank) ||
            !parse_int(fields[1], 0, INT_MAX, &job->abort.version)) {
            *why = "desync_test_abort=\"" + text + "\": expected RANK:VERSION, RANK from 0 to " +
                   std::to_string(processes - 1);
            return false;
        }
    }
    if (read_hint(info, "desync_test_late_records", &text)) {
        // Rank 0 holds the map: it makes the records.
        if (job->checkpoint.empty() || !parse_int(text, 1, processes - 1, &job->late_records)) {
            *why = "desync_test_late_records=\"" + text + "\": expected a RANK from 1 to " +
                   std::to_string(processes - 1) + ", with desync_checkpoint";
            return false;
        }
    }
    return true;
}

} // namespace

int parse_job(MPI_Info info, int processes, Job *job, std::string *why)
{
    *job = Job();
    if (info == MPI_INFO_NULL) {
        *why = "no job description: the desync_files hint is required";
        return DESYNC_ERR_HINT;
    }
    int keys = 0;
    MPI_Info_get_nkeys(info, &keys);
    static const char *const known[] = {"desync_files", "desync_chunks", "desync_window",
                                        "desync_rebalance", "desync_balance", "desync_replicate",
                                        "desync_loss_timeout", "desync_test_stop", "desync_checkpoint",
                                        "desync_checkpoint_block", "desync_test_abort",
                                        "desync_test_late_records"};
    for (int i = 0; i < keys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        MPI_Info_get_nthkey(info, i, key);
        if (std::strncmp(key, "desync_", 7) != 0)
            continue; // hints of other libraries may share the info
        bool ok = false;
        for (const char *k : known)
            ok = ok || !std::strcmp(key, k);
        if (!ok) {
            *why = std::string("unknown hint ") + key;
            return DESYNC_ERR_HINT;
        }
    }
    std::string text;
    if (!read_hint(info, "desync_files", &text)) {
        *why = "the desync_files hint is required";
        return DESYNC_ERR_HINT;
    }
    if (!parse_files(text, job, why))
        return DESYNC_ERR_HINT;
    if (read_hint(info, "desync_chunks", &text) && !parse_chunks(text, processes, job, why))
        return DESYNC_ERR_HINT;
    if (job->layout.kind == LayoutSpec::Grid)
        for (const FileShape &f : job->files)
            if (f.extent.size() != job->layout.grid.size()) {
                *why = "desync_chunks: grid has " + std::to_string(job->layout.grid.size()) +
                       " parts but file " + std::to_string(f.id) + " has " +
                       std::to_string(f.extent.size()) + " dimensions";
                return DESYNC_ERR_HINT;
            } else {
                for (size_t k = 0; k < f.extent.size(); k++)
                    if (job->layout.grid[k] > f.extent[k]) {
                        *why = "desync_chunks: more parts than blocks along a dimension of file " +
                               std::to_string(f.id);
                        return DESYNC_ERR_HINT;
                    }
            }
    for (const FileShape &f : job->files)
        if (f.blocks_per_version() < processes) {
            *why = "file " + std::to_string(f.id) + " has fewer blocks per version than processes";
            return DESYNC_ERR_HINT;
        }
    if (read_hint(info, "desync_window", &text) && !parse_int(text, 1, 1000, &job->window)) {
        *why = "desync_window=\"" + text + "\": expected an integer from 1 to 1000";
        return DESYNC_ERR_HINT;
    }
    if (read_hint(info, "desync_rebalance", &text) && !parse_int(text, 0, INT_MAX, &job->rebalance)) {
        *why = "desync_rebalance=\"" + text + "\": expected versions per lease period (0: never)";
        return DESYNC_ERR_HINT;
    }
    if (read_hint(info, "desync_balance", &text)) {
        if (text == "misses" || text == "throughput") {
            job->balance = text == "misses" ? Job::Misses : Job::Throughput;
        } else {
            *why = "desync_balance=\"" + text + "\": expected misses or throughput";
            return DESYNC_ERR_HINT;
        }
    }
    if (read_hint(info, "desync_replicate", &text) && !parse_int(text, 0, INT_MAX, &job->replicate)) {
        *why = "desync_replicate=\"" + text + "\": expected versions between replicas (0: none)";
        return DESYNC_ERR_HINT;
    }
    if (read_hint(info, "desync_loss_timeout", &text) &&
        (!parse_seconds(text, &job->loss_timeout) || job->loss_timeout <= 0)) {
        *why = "desync_loss_timeout=\"" + text + "\": expected seconds, more than 0";
        return DESYNC_ERR_HINT;
    }
    if (read_hint(info, "desync_test_stop", &text) && !parse_stop(text, processes, job, why))
        return DESYNC_ERR_HINT;
    if (!parse_checkpoint(info, processes, job, why))
        return DESYNC_ERR_HINT;
    return DESYNC_SUCCESS;
}

} // namespace desync
