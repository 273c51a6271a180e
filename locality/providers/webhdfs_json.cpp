// webhdfs_json.cpp - WebHDFS JSON bodies into chunk tables, file status and listings,
// with nlohmann-json.
#include "providers/webhdfs_json.h"

#include <nlohmann/json.hpp>

#include <set>
#include <vector>

#include "error.h"

namespace dli {
namespace {

using nlohmann::json;

// The members any of the readers below use. Others are dropped while parsing, so a
// 100,000-block list does not hold every block's names, topologyPaths, storageTypes...
bool is_used_member(const std::string &key) {
    static const std::set<std::string> used = {
        "BlockLocations", "BlockLocation", "offset", "length", "hosts",
        "LocatedBlocks", "fileLength", "locatedBlocks", "startOffset", "block", "numBytes", "locations",
        "hostName", "FileStatus", "FileStatuses", "type", "pathSuffix",
        "RemoteException", "exception", "javaClassName", "message"};
    return used.count(key) != 0;
}

// Builds the document of a body with only the members is_used_member names (nlohmann's
// own parser callbacks do the same, but take a minute over a 100,000-block list).
class UsedMembers : public nlohmann::json_sax<json> {
public:
    explicit UsedMembers(json &root) : root_(root) {}
    std::string error;  // why the body is not JSON, after sax_parse returned false

    bool null() override { return put(json(nullptr)); }
    bool boolean(bool value) override { return put(json(value)); }
    bool number_integer(number_integer_t value) override { return put(json(value)); }
    bool number_unsigned(number_unsigned_t value) override { return put(json(value)); }
    bool number_float(number_float_t value, const string_t &) override { return put(json(value)); }
    bool string(string_t &value) override { return put(json(std::move(value))); }
    bool binary(binary_t &) override { return put(json()); }  // JSON text has none
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t &name) override {
        if (skipped_depth_ == 0) {
            skip_next_ = !is_used_member(name);
            key_ = std::move(name);
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) override {
        error = e.what();
        return false;
    }

private:
    bool put(json &&value) {
        if (skipped_depth_ == 0 && !skip_next_) place(std::move(value));
        skip_next_ = false;
        return true;
    }
    bool open(json &&container) {
        if (skipped_depth_ > 0 || skip_next_) {
            ++skipped_depth_;
        } else {
            open_.push_back(place(std::move(container)));
        }
        skip_next_ = false;
        return true;
    }
    bool close() {
        if (skipped_depth_ > 0) --skipped_depth_;
        else open_.pop_back();
        return true;
    }
    // Where a value goes: the root, the open array's end, or the open object's key. The
    // pointer to an array element stays valid: nothing else joins that array while it is open.
    json *place(json &&value) {
        if (open_.empty()) return &(root_ = std::move(value));
        json &parent = *open_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        return &(parent[key_] = std::move(value));
    }

    json &root_;
    std::vector<json *> open_;
    std::string key_;
    bool skip_next_ = false;
    size_t skipped_depth_ = 0;  // > 0 inside a container of an unused member
};

// The body's document (used members only); false and `why` when it is not JSON.
bool parse_used(const std::string &body, json &root, std::string *why) {
    UsedMembers builder(root);
    if (json::sax_parse(body, &builder)) return true;
    if (why) *why = builder.error;
    return false;
}

bool has_control_byte(const std::string &text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

// Typed access to a parsed body; each failure names the member ("BlockLocations.
// BlockLocation[3].length") and what it was instead.
class Reader {
public:
    explicit Reader(const std::string &source) : source_(source) {}

    json parse(const std::string &body) const {
        if (body.empty()) fail("an empty body where JSON was expected");
        json root;
        std::string why;
        if (!parse_used(body, root, &why)) fail("the body is not valid JSON (" + why + ")");
        return root;
    }
    const json &member(const json &object, const char *key, const std::string &where) const {
        if (!object.is_object()) fail(named(where) + " is " + a(object) + ", not an object");
        auto found = object.find(key);
        if (found == object.end()) fail(join(where, key) + " is missing");
        return *found;
    }
    const json &array(const json &value, const std::string &where) const {
        if (!value.is_array()) fail(where + " is " + a(value) + ", not an array");
        return value;
    }
    // A whole number from 0 to 2^63-1.
    int64_t count(const json &value, const std::string &where) const {
        // nlohmann-json keeps non-negative whole numbers unsigned, negative ones signed.
        if (value.is_number_unsigned()) {
            if (value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
                fail(where + " is too large (" + value.dump() + ")");
            return static_cast<int64_t>(value.get<uint64_t>());
        }
        if (value.is_number_integer()) fail(where + " is negative (" + value.dump() + ")");
        fail(where + " is " + a(value) + (value.is_number() ? " (" + value.dump() + ")" : "") +
             ", not a whole number of bytes");
    }
    std::string text(const json &value, const std::string &where) const {
        if (!value.is_string()) fail(where + " is " + a(value) + ", not a string");
        const std::string &s = value.get_ref<const std::string &>();
        if (has_control_byte(s)) fail(where + " holds a control byte");
        return s;
    }
    std::string host(const json &value, const std::string &where) const {
        std::string name = text(value, where);
        if (name.empty()) fail(where + " is an empty host name");
        return name;
    }
    [[noreturn]] void fail(const std::string &what) const { throw Error(DLI_ERR_PROTOCOL, source_ + ": " + what); }

private:
    static std::string named(const std::string &where) { return where.empty() ? "the body" : where; }
    static std::string join(const std::string &where, const char *key) { return where.empty() ? key : where + "." + key; }
    static std::string a(const json &value) {
        std::string type = value.type_name();
        return (type == "object" || type == "array" ? "an " : "a ") + type;
    }
    const std::string &source_;
};

std::string item(const std::string &where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

// Each element of BLOCKS (at WHERE[i]) read into a chunk by READ, in order. Zero-length
// blocks (a file being written may end with one) hold no bytes: skipped.
template <class Read> void add_blocks(ChunkTable &table, const json &blocks, const std::string &where, Read read) {
    table.chunks.reserve(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) {
        Chunk chunk = read(blocks[i], item(where, i));
        if (chunk.length > 0) table.chunks.push_back(std::move(chunk));
    }
}

}  // namespace

RemoteException parse_remote_exception(const std::string &body) {
    RemoteException out;
    json root;
    if (!parse_used(body, root, nullptr) || !root.is_object()) return out;
    auto remote = root.find("RemoteException");
    if (remote == root.end() || !remote->is_object()) return out;
    auto text_of = [&](const char *key) {
        auto found = remote->find(key);
        return found != remote->end() && found->is_string() ? found->get<std::string>() : std::string();
    };
    out.exception = text_of("exception");
    out.java_class = text_of("javaClassName");
    out.message = text_of("message");
    out.found = !out.exception.empty();
    return out;
}

ChunkTable parse_block_locations(const std::string &body, const std::string &source) {
    Reader in(source);
    json root = in.parse(body);
    const std::string where = "BlockLocations.BlockLocation";
    const json &blocks = in.array(in.member(in.member(root, "BlockLocations", ""), "BlockLocation", "BlockLocations"), where);
    ChunkTable table;
    add_blocks(table, blocks, where, [&](const json &block, const std::string &at) {
        Chunk chunk;
        chunk.offset = in.count(in.member(block, "offset", at), at + ".offset");
        chunk.length = in.count(in.member(block, "length", at), at + ".length");
        const json &hosts = in.array(in.member(block, "hosts", at), at + ".hosts");
        for (size_t h = 0; h < hosts.size(); ++h) chunk.hosts.push_back(in.host(hosts[h], item(at + ".hosts", h)));
        if (chunk.length > INT64_MAX - chunk.offset) in.fail(at + " ends past 2^63");
        table.file_size = chunk.offset + chunk.length;  // the end of the last block
        return chunk;
    });
    check_chunk_table(table, DLI_ERR_PROTOCOL, source);
    return table;
}

ChunkTable parse_located_blocks(const std::string &body, const std::string &source) {
    Reader in(source);
    json root = in.parse(body);
    const json &located = in.member(root, "LocatedBlocks", "");
    ChunkTable table;
    table.file_size = in.count(in.member(located, "fileLength", "LocatedBlocks"), "LocatedBlocks.fileLength");
    const std::string where = "LocatedBlocks.locatedBlocks";
    const json &blocks = in.array(in.member(located, "locatedBlocks", "LocatedBlocks"), where);
    add_blocks(table, blocks, where, [&](const json &block, const std::string &at) {
        Chunk chunk;
        chunk.offset = in.count(in.member(block, "startOffset", at), at + ".startOffset");
        chunk.length = in.count(in.member(in.member(block, "block", at), "numBytes", at + ".block"),
                                at + ".block.numBytes");
        const json &replicas = in.array(in.member(block, "locations", at), at + ".locations");
        for (size_t r = 0; r < replicas.size(); ++r) {
            std::string replica = item(at + ".locations", r);
            chunk.hosts.push_back(in.host(in.member(replicas[r], "hostName", replica), replica + ".hostName"));
        }
        return chunk;
    });
    check_chunk_table(table, DLI_ERR_PROTOCOL, source);
    return table;
}

FileStatus parse_file_status(const std::string &body, const std::string &source) {
    Reader in(source);
    json root = in.parse(body);
    const json &status = in.member(root, "FileStatus", "");
    FileStatus out;
    out.length = in.count(in.member(status, "length", "FileStatus"), "FileStatus.length");
    out.type = in.text(in.member(status, "type", "FileStatus"), "FileStatus.type");
    return out;
}

std::vector<DirectoryEntry> parse_directory_listing(const std::string &body, const std::string &source) {
    Reader in(source);
    json root = in.parse(body);
    const std::string where = "FileStatuses.FileStatus";
    const json &entries = in.array(in.member(in.member(root, "FileStatuses", ""), "FileStatus", "FileStatuses"), where);
    std::vector<DirectoryEntry> out;
    for (size_t i = 0; i < entries.size(); ++i) {
        std::string at = item(where, i);
        DirectoryEntry entry;
        entry.suffix = in.text(in.member(entries[i], "pathSuffix", at), at + ".pathSuffix");
        entry.type = in.text(in.member(entries[i], "type", at), at + ".type");
        if (entry.suffix.find('/') != std::string::npos || entry.suffix == "." || entry.suffix == "..")
            in.fail(at + ".pathSuffix \"" + entry.suffix + "\" is not a name within the directory");
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace dli
