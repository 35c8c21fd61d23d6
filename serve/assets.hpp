// The explorer page's files (serve/web/), compiled into the binary.
#pragma once

#include <string_view>
#include <vector>

namespace dtb::serve {

struct Asset {
    std::string_view path;     // "/index.html", "/explorer.js", ...
    std::string_view content;
};

const std::vector<Asset>& web_assets();

}  // namespace dtb::serve
