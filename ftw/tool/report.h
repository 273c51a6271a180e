// report.h - what rank 0 prints about a run: the human summary, the --json object
// and the --stats-matrix CSV.
#ifndef PFTW_TOOL_REPORT_H
#define PFTW_TOOL_REPORT_H

#include "du.h"
#include "options.h"
#include "totals.h"

#include <string>
#include <vector>

namespace pftw_tool {

// Threads per rank as reported: pftw_threads if it was set, else the most threads
// seen visiting on any rank (the library chose).
uint64_t reported_threads(const Options &options, const RunSummary &summary);

std::string summary_text(const Options &options, const RunSummary &summary);

// du: the --du lines, or nullptr without --du.
std::string json_report(const Options &options, const RunSummary &summary,
                        const std::vector<DuLine> *du);

// "from,to,messages,bytes" and one row per pair of ranks.
std::string stats_matrix_csv(const RunSummary &summary);

// "BYTES\tPATH\n" per line.
std::string du_text(const std::vector<DuLine> &du);

}  // namespace pftw_tool

#endif
