// The verdict of `ckptsim advise`: every candidate against the baseline by the rule of
// analysis/significance.hpp (a setting wins only beyond noise), the winners against each other,
// and the text that says which to set, with the numbers, the mechanism, and what it costs.
#include "analysis/advise.hpp"

#include <fmt/format.h>

#include "analysis/significance.hpp"

namespace ckptsim::analysis {
namespace {

// Metrics a recommendation must not quietly make worse; each is named when it does.
constexpr std::pair<Metric, bool> kWatched[] = {{Metric::failovers, false},
                                                {Metric::failed_checkpoints, false},
                                                {Metric::completed_checkpoints, true},
                                                {Metric::lost_records, false},
                                                {Metric::latency_p99, false},
                                                {Metric::overhead, false},
                                                {Metric::p99_duration_after_first, false},
                                                {Metric::replayed_records, false}};

const Estimate& metric(const SettingSummary& s, Metric m) {
  return s.metrics[static_cast<std::size_t>(m)];
}

std::string label(const Candidate& c) {
  return fmt::format("{}", fmt::join(c.overrides, " "));
}

// "failovers 0 (baseline 3.40 ± 0.37)" for each objective term that has a value.
std::string numbers(const Comparison& c, std::size_t setting) {
  std::vector<std::string> parts;
  for (const ObjectiveTerm& t : c.objective)
    if (metric(c.settings[setting], t.metric).n > 0 || metric(c.settings[0], t.metric).n > 0)
      parts.push_back(fmt::format("{} {} (baseline {})", metric_title(t.metric),
                                  format_estimate(t.metric, metric(c.settings[setting], t.metric)),
                                  format_estimate(t.metric, metric(c.settings[0], t.metric))));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The watched metrics on which `setting` is worse than the baseline beyond noise.
std::string trade_offs(const Comparison& c, std::size_t setting) {
  std::vector<std::string> parts;
  for (const auto& [m, maximize] : kWatched)
    if (compare_metric(m, metric(c.settings[setting], m), metric(c.settings[0], m), maximize) ==
        Outcome::worse)
      parts.push_back(fmt::format("{} {} (baseline {})", metric_title(m),
                                  format_estimate(m, metric(c.settings[setting], m)),
                                  format_estimate(m, metric(c.settings[0], m))));
  return fmt::format("{}", fmt::join(parts, "; "));
}

void candidate_lines(std::string& out, const Comparison& c, const std::vector<Candidate>& cs,
                     std::size_t k, bool show_why_not, bool show_label = true) {
  const Candidate& candidate = cs[k];
  const SettingSummary& s = c.settings[k + 1];
  if (show_label) out += "  " + label(candidate) + "\n";
  if (s.runs == 0) {
    out += "    did not run: " + s.first_error + "\n";
    return;
  }
  out += "    " + numbers(c, k + 1) + "\n";
  out += "    what it acts on: " + candidate.why + "\n";
  if (show_why_not && !candidate.why_not.empty())
    out += "    why not here: " + candidate.why_not + "\n";
  if (!show_why_not) {
    if (const std::string worse = trade_offs(c, k + 1); !worse.empty())
      out += "    but worse on: " + worse + "\n";
    if (!candidate.caveat.empty()) out += "    at a cost: " + candidate.caveat + "\n";
  }
}

void section(std::string& out, const std::string& title, const std::vector<std::size_t>& which,
             const Comparison& c, const std::vector<Candidate>& cs, bool show_why_not) {
  if (which.empty()) return;
  out += title + "\n";
  for (std::size_t k : which) candidate_lines(out, c, cs, k, show_why_not);
}

}  // namespace

Verdict judge(const Comparison& c, std::size_t candidate_count) {
  Verdict v;
  std::vector<std::size_t> winners;  // settings (candidate + 1)
  for (std::size_t k = 0; k < candidate_count && k + 1 < c.settings.size(); ++k) {
    const SettingSummary& s = c.settings[k + 1];
    if (!s.feasible || c.settings[0].runs == 0) {
      v.worse.push_back(k);
      continue;
    }
    const bool fewer_complete =
        compare_metric(Metric::completed_checkpoints, metric(s, Metric::completed_checkpoints),
                       metric(c.settings[0], Metric::completed_checkpoints),
                       true) == Outcome::worse;
    const bool fewer_fail =
        compare_metric(Metric::failed_checkpoints, metric(s, Metric::failed_checkpoints),
                       metric(c.settings[0], Metric::failed_checkpoints)) == Outcome::better;
    switch (rank(s, c.settings[0], c.objective).outcome) {
      case Outcome::better:
        if (fewer_complete && !fewer_fail &&
            metric(c.settings[0], Metric::failed_checkpoints).mean > 0)
          v.hiding.push_back(k);
        else
          winners.push_back(k + 1);
        break;
      case Outcome::tie:
        v.ties.push_back(k);
        break;
      case Outcome::worse:
        v.worse.push_back(k);
        break;
    }
  }
  std::vector<std::size_t> top = undominated(c.settings, winners, c.objective);
  if (top.empty()) top = winners;  // beaten in a cycle: none stands out
  for (std::size_t setting : winners)
    (std::find(top.begin(), top.end(), setting) != top.end() ? v.recommended : v.better)
        .push_back(setting - 1);
  return v;
}

std::string advice_text(const std::string& path, const Findings& f,
                        const std::vector<Candidate>& cs, const std::vector<Candidate>& not_tried,
                        const Comparison& c, const Verdict& v, std::size_t seeds,
                        std::uint64_t first_seed) {
  std::string out = fmt::format(
      "ckptsim advise {}: the baseline and {} setting{} to try, {} seed{} each ({} to {})\n"
      "objective: {}; a setting is better only beyond noise (Welch's t-test at 95 % over the "
      "seeds, and by more than 1 % of the mean)\n\n",
      path, cs.size(), cs.size() == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s", first_seed,
      first_seed + seeds - 1, objective_text(c.objective));
  out += fmt::format("What the baseline run (seed {}) shows:\n", first_seed);
  for (const std::string& line : f.lines) out += "  " + line + "\n";
  out += "\n";
  if (cs.empty() && not_tried.empty()) {
    out +=
        "Verdict: nothing to try: the run shows no failed checkpoint, failover or "
        "mechanism that a setting ckptsim knows could address\n";
    return out;
  }
  if (v.recommended.size() == 1) {
    out += "Verdict: set " + label(cs[v.recommended.front()]) + "\n";
    candidate_lines(out, c, cs, v.recommended.front(), false, false);
  } else if (v.recommended.size() > 1) {
    out += "Verdict: a tie: these beat the baseline, and none beats the others beyond noise\n";
    for (std::size_t k : v.recommended) candidate_lines(out, c, cs, k, false);
  } else {
    out += "Verdict: no setting tried beats the baseline beyond noise\n";
  }
  section(out, "\nAlso better than the baseline, but beaten by the above:", v.better, c, cs, false);
  section(out, "\nNo better than the baseline (a tie within noise):", v.ties, c, cs, true);
  section(out,
          "\nFewer failovers only by hiding the failures (fewer checkpoints complete, no "
          "fewer fail):",
          v.hiding, c, cs, true);
  section(out, "\nWorse than the baseline:", v.worse, c, cs, true);
  if (!not_tried.empty()) out += "\nNot tried:\n";
  for (const Candidate& n : not_tried) out += "  " + label(n) + ": " + n.why_not + "\n";
  return out;
}

}  // namespace ckptsim::analysis
