// Leftovers of a ckptsim process that was killed (kill -9, power loss) while writing: temporary
// files and directories whose name carries the writer's pid.
#pragma once

#include <filesystem>
#include <string_view>

namespace ckptsim::run {

// Removes every entry of `dir` whose name is "<anything><marker><pid>" (the pid in decimal, to
// the end of the name) when no process with that pid exists any more. Entries of live processes
// and names of any other form are left alone; errors are ignored (a leftover is retried next
// time).
void remove_stale_files(const std::filesystem::path& dir, std::string_view marker);

}  // namespace ckptsim::run
