// kReportBaseCss (html_style.h).
#include "rooflens/report/html_style.h"

namespace rooflens::report {

const char* const kReportBaseCss = R"css(
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 16px 24px; color: #212529; max-width: 1440px; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 17px; margin: 26px 0 8px; border-bottom: 1px solid #dee2e6; padding-bottom: 3px; }
.source { background: #fff3bf; border: 1px solid #e0c000; padding: 6px 10px; margin: 8px 0; font-size: 14px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; font-size: 13px; margin: 8px 0; }
dl.meta dt { font-weight: bold; }
dl.meta dd { margin: 0; }
)css";

}  // namespace rooflens::report
