// libFuzzer target: the importers of real Flink files (ckptsim import): the input as a JobManager
// log or, when it is JSON, as a REST body. Besides crashes and sanitizer reports it checks that
// what is imported is consistent: counts add up, ids are unique.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "analysis/import/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  const auto imported = ckptsim::analysis::import_texts(
      {{"fuzz", std::string(reinterpret_cast<const char*>(data), size)}}, error);
  if (!imported) return 0;
  const auto& r = imported->result;
  if (r.counts.total < 0 || r.counts.completed < 0 || r.counts.failed < 0) __builtin_trap();
  std::set<std::int64_t> ids;
  for (const auto& c : r.checkpoints)
    if (!ids.insert(c.id).second) __builtin_trap();
  return 0;
}
