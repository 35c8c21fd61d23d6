// JSON output of the command line: the same writer as the server's (serve/json.hpp).
#pragma once

#include "serve/json.hpp"

namespace dtb::cli {

using serve::Json;
using serve::json_text;

}  // namespace dtb::cli
