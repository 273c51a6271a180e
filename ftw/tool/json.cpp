// json.cpp - JSON text, byte-exact for file names.
#include "json.h"

#include <cmath>
#include <cstdio>

namespace pftw_tool {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are not valid).
size_t utf8_sequence_length(const unsigned char *s, size_t n) {
    const unsigned char lead = s[0];
    size_t length;
    unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else return 0;
    if (n < length || s[1] < low || s[1] > high)
        return 0;
    for (size_t i = 2; i < length; ++i)
        if (!is_continuation(s[i]))
            return 0;
    return length;
}

void append_escape(std::string &out, unsigned code) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "\\u%04x", code);
    out += buffer;
}

}  // namespace

std::string json_string(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() + 2);
    out.push_back('"');
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
    for (size_t i = 0, n = bytes.size(); i < n;) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20) append_escape(out, c);
                else out.push_back(char(c));
            }
            ++i;
            continue;
        }
        if (const size_t length = utf8_sequence_length(s + i, n - i)) {
            out.append(bytes.data() + i, length);
            i += length;
        } else {
            append_escape(out, 0xDC00u + c);
            ++i;
        }
    }
    out.push_back('"');
    return out;
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!has_members_.empty()) {
        if (has_members_.back())
            out_.push_back(',');
        has_members_.back() = true;
    }
}

void JsonWriter::begin_object() {
    before_value();
    out_.push_back('{');
    has_members_.push_back(false);
}

void JsonWriter::end_object() {
    has_members_.pop_back();
    out_.push_back('}');
}

void JsonWriter::begin_array() {
    before_value();
    out_.push_back('[');
    has_members_.push_back(false);
}

void JsonWriter::end_array() {
    has_members_.pop_back();
    out_.push_back(']');
}

void JsonWriter::key(std::string_view name) {
    before_value();
    out_ += json_string(name);
    out_.push_back(':');
    after_key_ = true;
}

void JsonWriter::number(uint64_t value) {
    before_value();
    out_ += std::to_string(value);
}

void JsonWriter::real(double value) {
    before_value();
    if (!std::isfinite(value)) {
        out_ += "null";
        return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.12g", value);
    out_ += buffer;
}

void JsonWriter::boolean(bool value) {
    before_value();
    out_ += value ? "true" : "false";
}

void JsonWriter::string(std::string_view bytes) {
    before_value();
    out_ += json_string(bytes);
}

}  // namespace pftw_tool
