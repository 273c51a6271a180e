// map_file.cpp - parsing DLI_map.5 map files. Every rule of the format is checked here,
// with the line it broke; the chunk tables that come out tile their files exactly.
#include "providers/map_file.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "error.h"

namespace dli {
namespace {

class Parser {
public:
    Parser(const std::string &text, const std::string &source) : text_(text), source_(source) {}

    std::map<std::string, ChunkTable> run() {
        if (text_.find('\0') != std::string::npos) {
            line_ = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + text_.find('\0'), '\n'));
            fail("a NUL byte");
        }
        bool versioned = false;
        ChunkTable *current = nullptr;
        size_t at = 0;
        while (at < text_.size()) {
            size_t end = text_.find('\n', at);
            if (end == std::string::npos) end = text_.size();
            ++line_;
            if (end - at > kMaxMapLine) fail("a line longer than " + std::to_string(kMaxMapLine) + " bytes");
            std::vector<std::string> words = split(text_.substr(at, end - at));
            at = end + 1;
            if (words.empty()) continue;  // blank or comment
            if (!versioned) {
                if (words.size() != 2 || words[0] != "dli-map") fail("the first line must be \"dli-map 1\"");
                if (words[1] != "1") fail("version " + words[1] + " is not known (this library reads 1)");
                versioned = true;
            } else if (words[0] == "file") {
                if (words.size() != 2) fail("\"file\" takes one name");
                std::string name = unescape(words[1]);
                if (tables_.count(name)) fail("file " + words[1] + " is listed twice");
                current = &tables_[name];
                current->file = name;
            } else if (words[0][0] >= '0' && words[0][0] <= '9') {
                if (!current) fail("a chunk before any \"file\" line");
                add_chunk(*current, words);
            } else {
                fail("unknown keyword \"" + printable(words[0]) + "\"");
            }
        }
        if (!versioned) fail("empty map: the first line must be \"dli-map 1\"");
        return std::move(tables_);
    }

private:
    [[noreturn]] void fail(const std::string &what) const {
        throw Error(DLI_ERR_MAP, source_ + ":" + std::to_string(line_) + ": " + what);
    }

    // Words separated by spaces or tabs; '#' starts a comment; '\r' before '\n' ignored.
    std::vector<std::string> split(std::string line) const {
        if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::vector<std::string> words;
        size_t at = 0;
        while (at < line.size()) {
            while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
            size_t start = at;
            while (at < line.size() && line[at] != ' ' && line[at] != '\t') {
                unsigned char c = static_cast<unsigned char>(line[at]);
                if (c < 0x20 || c == 0x7f) fail("a control byte (escape it as %XX)");
                ++at;
            }
            if (at > start) words.push_back(line.substr(start, at - start));
        }
        return words;
    }

    static std::string printable(const std::string &word) {
        return word.size() > 40 ? word.substr(0, 40) + "..." : word;
    }

    // %XX escapes (any byte; '%', space, '#', '\n' and non-ASCII must be escaped).
    std::string unescape(const std::string &word) const {
        std::string out;
        for (size_t i = 0; i < word.size(); ++i) {
            if (word[i] != '%') {
                out += word[i];
                continue;
            }
            if (i + 2 >= word.size() || !isxdigit(static_cast<unsigned char>(word[i + 1])) ||
                !isxdigit(static_cast<unsigned char>(word[i + 2])))
                fail("a '%' not followed by two hex digits");
            out += static_cast<char>(std::stoi(word.substr(i + 1, 2), nullptr, 16));
            i += 2;
        }
        if (out.empty()) fail("an empty file name");
        if (out.find('\0') != std::string::npos) fail("%00 in a file name");
        return out;
    }

    int64_t number(const std::string &word, const char *what) const {
        if (word.empty() || word.size() > 19) fail(std::string(what) + " " + printable(word) + " is not a number below 2^63");
        int64_t value = 0;
        for (char c : word) {
            if (c < '0' || c > '9') fail(std::string(what) + " " + printable(word) + " is not a whole number");
            if (value > (INT64_MAX - (c - '0')) / 10) fail(std::string(what) + " " + word + " is 2^63 or more");
            value = value * 10 + (c - '0');
        }
        return value;
    }

    // "OFFSET LENGTH HOSTS": the chunk must start where the last one ended.
    void add_chunk(ChunkTable &table, const std::vector<std::string> &words) const {
        if (words.size() != 3) fail("a chunk line is OFFSET LENGTH HOST[,HOST...] (or - for no host)");
        Chunk chunk;
        chunk.offset = number(words[0], "offset");
        chunk.length = number(words[1], "length");
        if (chunk.length == 0) fail("a chunk of length 0");
        if (chunk.offset != table.file_size)
            fail("chunk at " + words[0] + " does not start where the last ended (" + std::to_string(table.file_size) + ")");
        if (chunk.length > INT64_MAX - chunk.offset) fail("chunk ends at 2^63 or later");
        if (words[2] != "-") {
            size_t at = 0;
            while (true) {
                size_t comma = words[2].find(',', at);
                std::string host = words[2].substr(at, comma == std::string::npos ? std::string::npos : comma - at);
                if (host.empty()) fail("an empty host name in " + printable(words[2]));
                if (host.find('%') != std::string::npos) fail("'%' in host name " + printable(host));
                if (std::find(chunk.hosts.begin(), chunk.hosts.end(), host) != chunk.hosts.end())
                    fail("host " + printable(host) + " twice in one chunk");
                chunk.hosts.push_back(host);
                if (comma == std::string::npos) break;
                at = comma + 1;
            }
        }
        table.file_size += chunk.length;
        table.chunks.push_back(std::move(chunk));
    }

    const std::string &text_;
    const std::string &source_;
    int line_ = 0;
    std::map<std::string, ChunkTable> tables_;
};

}  // namespace

std::map<std::string, ChunkTable> parse_map(const std::string &text, const std::string &source) {
    return Parser(text, source).run();
}

}  // namespace dli
