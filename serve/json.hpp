// JSON as dtb writes it, in the server's API and the command line's --json output (nlohmann-json).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dtb::serve {

// Keys stay in the order they are set.
using Json = nlohmann::ordered_json;

// One line of compact JSON, valid whatever the bytes of its strings: bytes that are not well-formed
// UTF-8 each become U+FFFD (user input, file names, messages that quote them).
inline std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace dtb::serve
