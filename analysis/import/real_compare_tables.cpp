// The outputs of `compare --real`: the terminal table, Markdown and CSV, all from one list of
// cells so that they say the same.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/import/real_compare.hpp"
#include "analysis/import/real_compare_text.hpp"

namespace ckptsim::analysis {
namespace {

constexpr const char* kNoAttempt = "No checkpoint attempt on either side";

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
};

std::string opt_id(const std::optional<CheckpointSide>& s) {
  if (!s) return "-";
  return s->id ? std::to_string(*s->id) : std::string("none");
}

std::string opt_number(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

std::string opt_clock(const std::optional<std::int64_t>& ms) {
  return ms ? clock_text(*ms) : std::string("-");
}

Table checkpoint_table(const RealComparison& c) {
  Table t{{"#", "real id", "sim id", "real at", "sim at", "real status", "simulated status", "real",
           "simulated", "differs"},
          {true, true, true, true, true, false, false, true, true, false},
          {}};
  for (std::size_t i = 0; i < c.checkpoints.size(); ++i) {
    const CheckpointRow& r = c.checkpoints[i];
    const auto at = [](const std::optional<CheckpointSide>& s) {
      return opt_clock(s ? std::optional(s->trigger_ms) : std::nullopt);
    };
    const auto took = [](const std::optional<CheckpointSide>& s) {
      return duration_text(s ? s->duration_ms : std::nullopt);
    };
    t.rows.push_back({std::to_string(i + 1), opt_id(r.real), opt_id(r.sim), at(r.real), at(r.sim),
                      status_text(r.real), status_text(r.sim), took(r.real), took(r.sim),
                      fmt::format("{}", fmt::join(r.differences, ", "))});
  }
  return t;
}

Table failover_table(const RealComparison& c) {
  Table t{{"failover", "real", "simulated", "differs"}, {true, true, true, false}, {}};
  for (std::size_t i = 0; i < c.failovers.size(); ++i) {
    const FailoverRow& f = c.failovers[i];
    t.rows.push_back({std::to_string(i + 1), opt_clock(f.real_ms), opt_clock(f.sim_ms),
                      f.differs ? "time" : ""});
  }
  return t;
}

std::string as_text(const Table& t) {
  std::vector<std::size_t> width(t.header.size());
  for (std::size_t k = 0; k < t.header.size(); ++k) {
    width[k] = t.header[k].size();
    for (const auto& row : t.rows) width[k] = std::max(width[k], row[k].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t k = 0; k < cells.size(); ++k)
      out += (k ? "  " : "") + (t.right[k] ? fmt::format("{:>{}}", cells[k], width[k])
                                           : fmt::format("{:<{}}", cells[k], width[k]));
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::string out = line(t.header);
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string as_markdown(const Table& t) {
  const auto cell = [](const std::string& text) {
    std::string out;
    for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
  };
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const std::string& c : cells) out += " " + cell(c) + " |";
    return out + "\n";
  };
  std::string out = line(t.header) + "|";
  for (bool right : t.right) out += right ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string how_read(const RealComparison& c) {
  return fmt::format(
      "at: trigger time from {}; attempts matched in trigger order; compared up to {}, where "
      "the real files end; durations from trigger to completion or failure",
      c.from_first_attempt ? "each side's first checkpoint attempt"
                           : "each side's start (the real files hold no checkpoint attempt)",
      clock_text(c.window_ms));
}

}  // namespace

std::string real_comparison_text(const RealComparison& c, const ComparedSides& sides) {
  std::string out = "real:      " + sides.real + "\nsimulated: " + sides.sim + "\n\n";
  out += c.checkpoints.empty() ? std::string(kNoAttempt) + "\n" : as_text(checkpoint_table(c));
  if (!c.failovers.empty()) out += "\n" + as_text(failover_table(c));
  return out + "\n" + how_read(c) + "\n" + real_comparison_verdict(c) + "\n";
}

std::string real_comparison_markdown(const RealComparison& c, const ComparedSides& sides) {
  std::string out =
      "# Real against simulated\n\n- real: " + sides.real + "\n- simulated: " + sides.sim +
      "\n\n## Checkpoints\n\n" +
      (c.checkpoints.empty() ? std::string(kNoAttempt) + ".\n" : as_markdown(checkpoint_table(c))) +
      "\n";
  if (!c.failovers.empty()) out += "## Failovers\n\n" + as_markdown(failover_table(c)) + "\n";
  return out + how_read(c) + ".\n\n## Verdict\n\n" + real_comparison_verdict(c) + "\n";
}

std::string real_comparison_csv(const RealComparison& c) {
  std::string out =
      "index,real_id,sim_id,real_status,sim_status,real_reason,sim_reason,real_trigger_ms,"
      "sim_trigger_ms,real_duration_ms,sim_duration_ms,differences\n";
  for (std::size_t i = 0; i < c.checkpoints.size(); ++i) {
    const CheckpointRow& r = c.checkpoints[i];
    const auto field = [&](const std::optional<CheckpointSide>& s, auto get) {
      return s ? get(*s) : std::string();
    };
    const auto id = [](const CheckpointSide& s) { return opt_number(s.id); };
    const auto status = [](const CheckpointSide& s) { return s.status; };
    const auto reason = [](const CheckpointSide& s) { return s.reason; };
    const auto at = [](const CheckpointSide& s) { return std::to_string(s.trigger_ms); };
    const auto took = [](const CheckpointSide& s) { return opt_number(s.duration_ms); };
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", i + 1, field(r.real, id),
                       field(r.sim, id), field(r.real, status), field(r.sim, status),
                       field(r.real, reason), field(r.sim, reason), field(r.real, at),
                       field(r.sim, at), field(r.real, took), field(r.sim, took),
                       fmt::join(r.differences, ";"));
  }
  return out;
}

std::string real_comparison_failovers_csv(const RealComparison& c) {
  std::string out = "index,real_ms,sim_ms,differs\n";
  for (std::size_t i = 0; i < c.failovers.size(); ++i)
    out += fmt::format("{},{},{},{}\n", i + 1, opt_number(c.failovers[i].real_ms),
                       opt_number(c.failovers[i].sim_ms), c.failovers[i].differs);
  return out;
}

}  // namespace ckptsim::analysis
