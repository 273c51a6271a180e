// Configuration from PIOX_* variables and piox_* hints: see config.h.
#include "config.h"

#include "piox_log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

namespace piox::shim {
namespace {

// A knob's value from text; false when the text is not one of its spellings.
bool parse_switch(const std::string &text, bool *value)
{
    for (const char *on : {"on", "1", "yes", "true", "enable"})
        if (text == on)
            return *value = true, true;
    for (const char *off : {"off", "0", "no", "false", "disable"})
        if (text == off)
            return *value = false, true;
    return false;
}

bool parse_transport(const std::string &text, piox_sfp_transport *value)
{
    static const std::pair<const char *, piox_sfp_transport> names[] = {
        {"auto", PIOX_SFP_TRANSPORT_AUTO},
        {"shm", PIOX_SFP_TRANSPORT_SHM},
        {"rma", PIOX_SFP_TRANSPORT_RMA}};
    for (const auto &[name, transport] : names)
        if (text == name)
            return *value = transport, true;
    return false;
}

bool parse_ordered_io(const std::string &text, bool *collective)
{
    if (text == "independent" || text == "collective")
        return *collective = text == "collective", true;
    return false;
}

bool parse_lock(const std::string &text, piox_lock_kind *value)
{
    if (text == "range" || text == "mutex")
        return *value = text == "range" ? PIOX_LOCK_RANGE : PIOX_LOCK_MUTEX, true;
    return false;
}

bool parse_lockless(const std::string &text, mpiio::LocklessPolicy *value)
{
    static const std::pair<const char *, mpiio::LocklessPolicy> names[] = {
        {"auto", mpiio::LocklessPolicy::detect},
        {"yes", mpiio::LocklessPolicy::lockless},
        {"no", mpiio::LocklessPolicy::locking}};
    for (const auto &[name, policy] : names)
        if (text == name)
            return *value = policy, true;
    return false;
}

bool parse_locality(const std::string &text, LocalityMode *value)
{
    static const std::pair<const char *, LocalityMode> names[] = {
        {"off", LocalityMode::off}, {"remap", LocalityMode::remap},
        {"aggregate", LocalityMode::aggregate}};
    for (const auto &[name, mode] : names)
        if (text == name)
            return *value = mode, true;
    return false;
}

// A colon-separated list, empty entries dropped.
std::vector<std::string> path_list(const std::string &text)
{
    std::vector<std::string> paths;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find(':', start), text.size());
        if (end > start)
            paths.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return paths;
}

// Applies one setting; a value the parser refuses keeps the current one, with a
// message naming the source ("PIOX_SFP" or "hint piox_sfp").
template <typename Value, typename Parser>
void apply(const std::string &source, const std::string &text, Parser parse, Value *value,
           const char *expected)
{
    if (!parse(text, value))
        piox_warn("ignoring %s=\"%s\": expected %s", source.c_str(), text.c_str(), expected);
}

// Every per-file knob, once: its hint key, its variable, how to parse it.
template <typename Visitor>
void for_each_file_knob(FileConfig *config, Visitor visit)
{
    visit("piox_sfp", "PIOX_SFP", parse_switch, &config->sfp, "on or off");
    visit("piox_sfp_transport", "PIOX_SFP_TRANSPORT", parse_transport,
          &config->sfp_options.transport, "auto, shm or rma");
    visit("piox_ordered_io", "PIOX_ORDERED_IO", parse_ordered_io,
          &config->sfp_options.collective_ordered_io, "independent or collective");
    visit("piox_atomic", "PIOX_ATOMIC", parse_switch, &config->atomic, "on or off");
    visit("piox_atomic_lock", "PIOX_ATOMIC_LOCK", parse_lock, &config->atomic_options.lock,
          "range or mutex");
    visit("piox_lockless", "PIOX_LOCKLESS", parse_lockless, &config->lockless,
          "auto, yes or no");
    visit("piox_locality", "PIOX_LOCALITY", parse_locality, &config->locality,
          "off, remap or aggregate");
}

JobConfig read_environment()
{
    JobConfig job;
    for_each_file_knob(&job.file_defaults, [](const char *, const char *variable, auto parse,
                                              auto *value, const char *expected) {
        if (const char *text = std::getenv(variable); text != nullptr && text[0] != '\0')
            apply(variable, text, parse, value, expected);
    });
    if (const char *text = std::getenv("PIOX_STATS"); text != nullptr && text[0] != '\0')
        apply("PIOX_STATS", text, parse_switch, &job.stats, "on or off");
    if (const char *text = std::getenv("PIOX_LOCALITY_PATHS"); text != nullptr)
        job.locality_paths = path_list(text);
    return job;
}

}  // namespace

const JobConfig &job_config()
{
    static const JobConfig job = read_environment();
    return job;
}

int file_config(MPI_Comm comm, MPI_Info info, FileConfig *config)
{
    *config = job_config().file_defaults;
    if (info != MPI_INFO_NULL) {
        for_each_file_knob(config, [info](const char *hint, const char *, auto parse, auto *value,
                                          const char *expected) {
            char text[MPI_MAX_INFO_VAL + 1] = {};
            int found = 0;
            if (PMPI_Info_get(info, hint, MPI_MAX_INFO_VAL, text, &found) == MPI_SUCCESS && found)
                apply(std::string("hint ") + hint, text, parse, value, expected);
        });
    }
    // Agreement: each setting's maximum and the maximum of its negation.
    const auto mine = knob_values(*config);
    const int n = static_cast<int>(mine.size());
    std::vector<int> bounds(2 * n), all(2 * n);
    for (int i = 0; i < n; i++) {
        bounds[i] = mine[i].second;
        bounds[n + i] = -mine[i].second;
    }
    int rc = PMPI_Allreduce(bounds.data(), all.data(), 2 * n, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++)
        if (all[i] != -all[n + i])
            return MPI_ERR_NOT_SAME;
    return MPI_SUCCESS;
}

int config_after_open(MPI_Info info, FileConfig *config, std::string *message)
{
    int rc = MPI_SUCCESS;
    if (info == MPI_INFO_NULL)
        return rc;
    for_each_file_knob(config, [&](const char *hint, const char *, auto parse, auto *value,
                                   const char *expected) {
        char text[MPI_MAX_INFO_VAL + 1] = {};
        int found = 0;
        if (rc != MPI_SUCCESS ||
            PMPI_Info_get(info, hint, MPI_MAX_INFO_VAL, text, &found) != MPI_SUCCESS || !found)
            return;
        if (!parse(text, value)) {
            rc = MPI_ERR_INFO_VALUE;
            *message = std::string("hint ") + hint + "=\"" + text + "\": expected " + expected;
        }
    });
    return rc;
}

std::vector<std::pair<const char *, int>> knob_values(const FileConfig &config)
{
    std::vector<std::pair<const char *, int>> values;
    FileConfig copy = config;  // for_each_file_knob hands out pointers it may write through
    for_each_file_knob(&copy, [&](const char *hint, const char *, auto, auto *value,
                                  const char *) { values.emplace_back(hint, static_cast<int>(*value)); });
    return values;
}

}  // namespace piox::shim
