#include "adjudicate/oracle.hpp"

#include "probe/tablebase.hpp"

namespace dtb {

// probe_dtw gives the value too: one probe per position where .dtw files exist.
Oracle tablebase_oracle(const Tablebase& tb) {
    return [&tb](const Position& pos) {
        Assessment a;
        const DtwResult d = tb.probe_dtw(pos);
        if (d.known()) {
            a.value = d.value;
            if (d.dtw >= 0) a.dtw = d.dtw;
            return a;
        }
        a.value = tb.probe_wdl(pos).value;
        return a;
    };
}

}  // namespace dtb
