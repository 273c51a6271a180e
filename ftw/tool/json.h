// json.h - a small JSON writer for pftw --json: objects, arrays, numbers, and strings
// of arbitrary bytes (file names need not be UTF-8).
#ifndef PFTW_TOOL_JSON_H
#define PFTW_TOOL_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pftw_tool {

// The JSON string literal (quotes included) for bytes. Valid UTF-8 passes through;
// control characters, '"' and '\' are escaped; each byte that is not part of valid
// UTF-8 becomes the lone surrogate \udcXX (XX = the byte), Python's "surrogateescape"
// (PEP 383), so os.fsencode(json.loads(...)) gives back the original bytes.
std::string json_string(std::string_view bytes);

class JsonWriter {
public:
    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    void key(std::string_view name);
    void number(uint64_t value);
    void real(double value);  // non-finite values are written as null
    void boolean(bool value);
    void string(std::string_view bytes);

    // The document so far (complete once every begin has its end).
    const std::string &text() const { return out_; }

private:
    void before_value();

    std::string out_;
    std::vector<bool> has_members_;  // one per open object or array
    bool after_key_ = false;
};

}  // namespace pftw_tool

#endif
