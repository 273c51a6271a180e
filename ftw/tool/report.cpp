// report.cpp - the run, written out for people and for programs.
#include "report.h"

#include "json.h"

#include <cstdio>
#include <cstdlib>

namespace pftw_tool {

uint64_t reported_threads(const Options &options, const RunSummary &summary) {
    if (options.has_hint("pftw_threads"))
        return std::strtoull(options.hint("pftw_threads").c_str(), nullptr, 10);
    return uint64_t(summary.sums.threads_seen);
}

std::string summary_text(const Options &options, const RunSummary &summary) {
    const RunTotals &t = summary.sums;
    char text[1024];
    std::snprintf(
        text, sizeof text,
        "pftw: %llu entries (%llu directories, %llu files, %llu symlinks, %llu others), "
        "%llu bytes, %llu errors%s\n"
        "pftw: %.3f s, %.0f entries/s on %d ranks, load balance %.3f (max %llu, mean %.1f)\n"
        "pftw: %llu messages, %llu bytes\n",
        (unsigned long long)t.entries, (unsigned long long)t.directories,
        (unsigned long long)t.files, (unsigned long long)t.symlinks, (unsigned long long)t.others,
        (unsigned long long)t.bytes, (unsigned long long)t.errors,
        options.stat() ? "" : " (bytes need --stat)", t.seconds, summary.entries_per_second(),
        summary.ranks, summary.load_balance(), (unsigned long long)summary.items_max,
        summary.items_mean, (unsigned long long)t.messages, (unsigned long long)t.message_bytes);
    std::string out = text;
    if (!options.selection.selects_everything()) {
        std::snprintf(text, sizeof text, "pftw: %llu entries selected\n",
                      (unsigned long long)t.matched);
        out += text;
    }
    return out;
}

std::string json_report(const Options &options, const RunSummary &summary,
                        const std::vector<DuLine> *du) {
    const RunTotals &t = summary.sums;
    JsonWriter json;
    json.begin_object();
    json.key("paths");
    json.begin_array();
    for (const std::string &path : options.paths)
        json.string(path);
    json.end_array();
    json.key("algorithm"); json.string(options.hint("pftw_algorithm", "h-drqs"));
    json.key("split"); json.string(options.hint("pftw_split", "random"));
    json.key("ranks"); json.number(uint64_t(summary.ranks));
    json.key("threads"); json.number(reported_threads(options, summary));
    json.key("stat"); json.boolean(options.stat());
    const std::pair<const char *, uint64_t> counts[] = {
        {"entries", t.entries}, {"directories", t.directories}, {"files", t.files},
        {"symlinks", t.symlinks}, {"others", t.others}, {"bytes", t.bytes},
        {"errors", t.errors}, {"matched", t.matched}};
    for (const auto &[name, value] : counts) {
        json.key(name);
        json.number(value);
    }
    json.key("seconds"); json.real(t.seconds);
    json.key("entries_per_second"); json.real(summary.entries_per_second());
    json.key("load_balance"); json.real(summary.load_balance());
    json.key("items_max"); json.number(summary.items_max);
    json.key("items_mean"); json.real(summary.items_mean);
    const std::pair<const char *, uint64_t> traffic[] = {
        {"messages", t.messages}, {"message_bytes", t.message_bytes},
        {"requests_fruitful", t.requests_fruitful}, {"requests_unfruitful", t.requests_unfruitful},
        {"requests_served", t.requests_served}, {"token_rounds", t.token_rounds}};
    for (const auto &[name, value] : traffic) {
        json.key(name);
        json.number(value);
    }
    json.key("time");
    json.begin_object();
    json.key("visit"); json.real(t.time_visit);
    json.key("stat"); json.real(t.time_stat);
    json.key("readdir"); json.real(t.time_readdir);
    json.key("comm"); json.real(t.time_comm);
    json.end_object();
    if (du) {
        json.key("du");
        json.begin_array();
        for (const DuLine &line : *du) {
            json.begin_object();
            json.key("path"); json.string(line.path);
            json.key("bytes"); json.number(line.bytes);
            json.end_object();
        }
        json.end_array();
    }
    json.end_object();
    return json.text() + "\n";
}

std::string stats_matrix_csv(const RunSummary &summary) {
    std::string csv = "from,to,messages,bytes\n";
    const size_t ranks = size_t(summary.ranks);
    for (size_t from = 0; from < ranks; ++from) {
        for (size_t to = 0; to < ranks; ++to) {
            const size_t at = from * ranks + to;
            csv += std::to_string(from) + "," + std::to_string(to) + "," +
                   std::to_string(summary.matrix_messages[at]) + "," +
                   std::to_string(summary.matrix_bytes[at]) + "\n";
        }
    }
    return csv;
}

std::string du_text(const std::vector<DuLine> &du) {
    std::string text;
    for (const DuLine &line : du)
        text += std::to_string(line.bytes) + "\t" + line.path + "\n";
    return text;
}

}  // namespace pftw_tool
