// Welch's t-test from the estimates a sweep keeps (mean, 95 % half-width, n): the standard error
// is the half-width over Student's t quantile, the degrees of freedom Welch-Satterthwaite's.
#include "analysis/significance.hpp"

#include <algorithm>
#include <cmath>

namespace ckptsim::analysis {
namespace {

// The smallest difference that matters for a metric, beside 1 % of the larger mean: a
// millisecond for durations, a tenth of a percentage point of overhead, a millisecond per
// second of back-pressure; counts have none (any count difference beyond 1 % matters).
double resolution(Metric m) {
  if (is_duration(m) || m == Metric::back_pressured) return 1.0;
  if (is_fraction(m)) return 0.001;
  return 0.0;
}

double standard_error(const Estimate& e) {
  return e.n < 2 ? 0.0 : e.ci95 / student_t_975(e.n - 1);
}

// Whether the means differ beyond noise: with no spread on either side (one seed, or a
// deterministic metric), any difference does.
bool significant(const Estimate& a, const Estimate& b) {
  const double sa = standard_error(a), sb = standard_error(b);
  const double va = sa * sa, vb = sb * sb;
  const double difference = std::fabs(a.mean - b.mean);
  if (va + vb == 0) return difference > 0;
  double denominator = 0;
  if (a.n >= 2) denominator += va * va / static_cast<double>(a.n - 1);
  if (b.n >= 2) denominator += vb * vb / static_cast<double>(b.n - 1);
  const double df = denominator > 0 ? (va + vb) * (va + vb) / denominator : 1.0;
  const auto whole_df = static_cast<std::size_t>(std::max(1.0, std::floor(df)));
  return difference > student_t_975(whole_df) * std::sqrt(va + vb);
}

}  // namespace

Outcome compare_metric(Metric m, const Estimate& a, const Estimate& b, bool maximize) {
  if ((a.n == 0) != (b.n == 0)) return a.n == 0 ? Outcome::worse : Outcome::better;
  if (a.n == 0) return Outcome::tie;
  const double threshold =
      std::max(resolution(m), 0.01 * std::max(std::fabs(a.mean), std::fabs(b.mean)));
  if (std::fabs(a.mean - b.mean) <= threshold || !significant(a, b)) return Outcome::tie;
  const bool a_lower = a.mean < b.mean;
  return a_lower != maximize ? Outcome::better : Outcome::worse;
}

Ranking rank(const SettingSummary& a, const SettingSummary& b,
             const std::vector<ObjectiveTerm>& objective) {
  for (const ObjectiveTerm& term : objective) {
    const auto m = static_cast<std::size_t>(term.metric);
    const Outcome o = compare_metric(term.metric, a.metrics[m], b.metrics[m], term.maximize);
    if (o != Outcome::tie) return {o, term};
  }
  return {};
}

std::vector<std::size_t> undominated(const std::vector<SettingSummary>& settings,
                                     const std::vector<std::size_t>& candidates,
                                     const std::vector<ObjectiveTerm>& objective) {
  std::vector<std::size_t> out;
  for (std::size_t a : candidates) {
    const bool beaten = std::any_of(candidates.begin(), candidates.end(), [&](std::size_t b) {
      return b != a && rank(settings[b], settings[a], objective).outcome == Outcome::better;
    });
    if (!beaten) out.push_back(a);
  }
  return out;
}

}  // namespace ckptsim::analysis
