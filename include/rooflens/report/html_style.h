// The CSS every rooflens HTML report starts with (page, headings, the source box, the
// metadata list), so the study and NAS pages look alike; each page appends its own rules.
#pragma once

namespace rooflens::report {

extern const char* const kReportBaseCss;

}  // namespace rooflens::report
