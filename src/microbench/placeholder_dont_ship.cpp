// Temporary: keeps the library non-empty until the microbench sources land.
namespace rooflens::microbench_detail { int unused_symbol = 0; }
