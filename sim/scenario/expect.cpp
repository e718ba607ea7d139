// Reads the `expect:` section into scenario::Expectations: one condition per list item
// (`checkpoint 4: expired`, `completed checkpoints: ">= 3"`, `job: failed-over`, ...), each with
// an optional `within` bound. Checking them against a run is analysis/expect's job.
#include <charconv>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

const char* const kCountHint =
    "write a number, or a comparison and a number: '= 3', '<= 3', '>= 3', '< 3', '> 3' (quote a "
    "value that starts with '>'), 'at least 3', 'at most 3'";
const char* const kDurationBoundHint =
    "write a comparison and a duration: '< 30 s', '<= 2 min', 'at most 500 ms' (quote a value "
    "that starts with '>')";

// The condition keys as the documentation writes them, for "did you mean".
const std::vector<std::string>& condition_keys() {
  static const std::vector<std::string> keys = {
      "checkpoint N",           "checkpoints",           "completed checkpoints",
      "failed checkpoints",     "expired checkpoints",   "triggered checkpoints",
      "job",                    "restarts",              "failovers",
      "checkpoint duration p50", "checkpoint duration p99", "replayed records",
      "lost records",           "log contains",           "log lacks",
      "diagnosis contains"};
  return keys;
}

// Lower case, single spaces: "Completed  Checkpoints" and "completed checkpoints" are one key.
std::string normalize(std::string_view text) {
  std::string out;
  for (char c : to_lower(trim(text))) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// The location of text[offset, offset + length) inside a scalar, when the scalar is written on
// one line as it reads (plain or quoted); otherwise the whole token.
Loc sub_loc(const Node& node, std::size_t offset, std::size_t length) {
  Loc loc = node.loc;
  const auto size = static_cast<int>(node.text.size());
  int quote = 0;
  if (loc.length == size + 2)
    quote = 1;
  else if (loc.length != size && !(size == 0 && loc.length == 1))
    return loc;
  loc.column += quote + static_cast<int>(offset);
  loc.length = std::max(1, static_cast<int>(length));
  return loc;
}

struct Operator {
  std::string_view spelling;
  Comparison comparison;
};
constexpr Operator kOperators[] = {
    {"<=", Comparison::at_most},        {">=", Comparison::at_least},
    {"==", Comparison::equal},          {"=", Comparison::equal},
    {"<", Comparison::less},            {">", Comparison::more},
    {"at most ", Comparison::at_most},  {"no more than ", Comparison::at_most},
    {"at least ", Comparison::at_least}, {"exactly ", Comparison::equal},
    {"less than ", Comparison::less},   {"fewer than ", Comparison::less},
    {"under ", Comparison::less},       {"more than ", Comparison::more},
    {"over ", Comparison::more},
};

enum class Quantity { count, duration };

// `text` is part of `node`'s text starting at `offset`.
std::optional<Bound> read_bound(Context& ctx, const Node& node, std::string_view text,
                                std::size_t offset, Quantity quantity) {
  const std::string lower = to_lower(text);
  Bound bound;
  std::size_t start = 0;
  for (const Operator& op : kOperators) {
    if (lower.rfind(op.spelling, 0) != 0) continue;
    bound.comparison = op.comparison;
    start = op.spelling.size();
    break;
  }
  const std::string_view number = trim(text.substr(start));
  const Loc loc = sub_loc(node, offset, text.size());
  if (trim(text).empty()) {
    // `failovers: >1` is a YAML folded block, empty here: the '>' never reaches us.
    ctx.error(loc, "expected a comparison such as '>= 3', got nothing",
              "a YAML value that starts with '>' must be quoted: '\">= 3\"'");
    return std::nullopt;
  }
  if (quantity == Quantity::count) {
    if (const std::optional<std::int64_t> count = parse_count(number)) {
      bound.value = static_cast<double>(*count);
      return bound;
    }
    ctx.error(loc, "expected a count such as '>= 3', got '" + std::string(text) + "'", kCountHint);
    return std::nullopt;
  }
  const Parsed<core::Duration> duration = parse_duration_detail(number, true);
  if (duration.value && !number.empty()) {
    bound.value = static_cast<double>(*duration.value);
    return bound;
  }
  std::string hint = kDurationBoundHint;
  if (duration.error == UnitError::unknown_unit) {
    const std::string suggestion = did_you_mean(duration.unit, duration_unit_names());
    if (!suggestion.empty()) hint = suggestion;
  }
  ctx.error(loc, "expected a duration bound such as '< 30 s', got '" + std::string(text) + "'",
            hint);
  return std::nullopt;
}

std::optional<CheckpointOutcome> read_outcome(Context& ctx, const Node& node, std::string_view text,
                                              Expectation& out) {
  const std::string value = normalize(text);
  if (value == "completed") return CheckpointOutcome::completed;
  if (value == "failed") return CheckpointOutcome::failed;
  if (value == "expired") return CheckpointOutcome::expired;
  if (value == "in-progress" || value == "in progress" || value == "in_progress")
    return CheckpointOutcome::in_progress;
  std::vector<std::string> names = {"completed", "failed", "expired", "in-progress"};
  for (int r = 0; r <= static_cast<int>(model::CheckpointFailureReason::trigger_checkpoint_failure);
       ++r) {
    const auto reason = static_cast<model::CheckpointFailureReason>(r);
    const std::string name = model::name(reason);
    if (to_lower(name) == value) {
      out.reason = reason;
      return CheckpointOutcome::failure_reason;
    }
    names.push_back(name);
  }
  std::string hint = did_you_mean(text, names);
  if (hint.empty())
    hint = "write completed, failed, expired, in-progress or a failure reason such as "
           "CHECKPOINT_DECLINED";
  ctx.error(sub_loc(node, 0, text.size()), "unknown checkpoint status '" + std::string(text) + "'",
            hint);
  return std::nullopt;
}

bool read_job(Context& ctx, const Node& node, std::string_view text, Expectation& out) {
  const std::string value = normalize(text);
  if (value == "failed-over" || value == "failed over") {
    out.kind = ExpectationKind::job_failed_over;
    return true;
  }
  if (value == "no failover" || value == "no failovers" || value == "not failed-over") {
    out.kind = ExpectationKind::job_no_failover;
    return true;
  }
  std::vector<std::string> names = {"failed-over", "no failover"};
  for (int s = 0; s <= static_cast<int>(model::JobStatus::reconciling); ++s) {
    const auto status = static_cast<model::JobStatus>(s);
    const std::string name = model::to_string(status);
    if (to_lower(name) == value) {
      out.kind = ExpectationKind::job_status;
      out.job_status = status;
      return true;
    }
    names.push_back(name);
  }
  std::string hint = did_you_mean(text, names);
  if (hint.empty())
    hint = "write failed-over, no failover, or the job's final status: RUNNING, FINISHED, FAILED, "
           "CANCELED";
  ctx.error(sub_loc(node, 0, text.size()), "unknown job expectation '" + std::string(text) + "'",
            hint);
  return false;
}

std::optional<double> percentile_of(std::string_view name) {
  if (name == "min") return 0.0;
  if (name == "avg") return -1.0;
  if (name == "p50") return 50.0;
  if (name == "p90") return 90.0;
  if (name == "p95") return 95.0;
  if (name == "p99") return 99.0;
  if (name == "p999") return 99.9;
  if (name == "max") return 100.0;
  return std::nullopt;
}

// Splits "expired within 20 min" into the condition and the bound; `within_offset` is where the
// duration starts. Log texts are never split: they may contain the word.
std::string_view split_within(std::string_view text, std::optional<std::size_t>& within_offset) {
  const std::string lower = to_lower(text);
  const std::size_t at = lower.rfind(" within ");
  if (at == std::string::npos) return text;
  within_offset = at + 8;
  return trim(text.substr(0, at));
}

std::optional<core::Duration> read_within(Context& ctx, const Loc& loc, std::string_view text) {
  const Parsed<core::Duration> duration = parse_duration_detail(text, true);
  if (duration.value && !trim(text).empty()) return duration.value;
  std::string hint = "write a simulated time such as 'within: 20 min'";
  if (duration.error == UnitError::unknown_unit) {
    const std::string suggestion = did_you_mean(duration.unit, duration_unit_names());
    if (!suggestion.empty()) hint = suggestion;
  }
  ctx.error(loc, "expected a duration after 'within', got '" + std::string(text) + "'", hint);
  return std::nullopt;
}

// Reads the condition `entry` (key and value) into `out`; false after a diagnostic.
bool read_condition(Context& ctx, const Entry& entry, Expectation& out,
                    std::optional<std::size_t>& within_offset, std::string_view& value_text) {
  const std::string key = normalize(entry.key);
  const Node& value = entry.value;
  if (!value.is_scalar()) {
    ctx.error(value.loc, "expected a condition such as '" + entry.key + ": ...', got " +
                             describe(value),
              "write one value per expectation, e.g. 'checkpoint 4: expired'");
    return false;
  }
  const bool is_log = key == "log contains" || key == "log lacks" || key == "diagnosis contains";
  value_text = is_log ? std::string_view(value.text) : split_within(value.text, within_offset);
  if (is_log) {
    out.kind = key == "log contains"         ? ExpectationKind::log_contains
               : key == "diagnosis contains" ? ExpectationKind::diagnosis_contains
                                             : ExpectationKind::log_lacks;
    out.log_text = value.text;
    if (!value.text.empty()) return true;
    ctx.error(value.loc, "'" + entry.key + "' needs the text to look for",
              "write e.g. 'log contains: \"Checkpoint expired\"'");
    return false;
  }
  if (key.rfind("checkpoint duration ", 0) == 0) {
    const std::string name = key.substr(20);
    const std::optional<double> percentile = percentile_of(name);
    if (!percentile) {
      std::string hint =
          did_you_mean(name, {"min", "avg", "p50", "p90", "p95", "p99", "p999", "max"});
      if (hint.empty())
        hint = "write min, avg, p50, p90, p95, p99, p999 or max (Flink's checkpoint summary)";
      ctx.error(entry.key_loc, "unknown checkpoint duration statistic '" + name + "'", hint);
      return false;
    }
    out.kind = ExpectationKind::checkpoint_duration;
    out.percentile = *percentile;
    const auto bound = read_bound(ctx, value, value_text, 0, Quantity::duration);
    if (bound) out.bound = *bound;
    return bound.has_value();
  }
  if (key.rfind("checkpoint ", 0) == 0) {
    const std::string id_text = key.substr(11);
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
    if (id_text.empty() || ec != std::errc() || end != id_text.data() + id_text.size() || id < 1) {
      ctx.error(entry.key_loc, "expected a checkpoint id (1, 2, ...) after 'checkpoint', got '" +
                                   entry.key.substr(std::min<std::size_t>(11, entry.key.size())) +
                                   "'",
                "write e.g. 'checkpoint 4: expired'");
      return false;
    }
    out.kind = ExpectationKind::checkpoint_status;
    out.checkpoint_id = id;
    const auto outcome = read_outcome(ctx, value, value_text, out);
    if (outcome) out.outcome = *outcome;
    return outcome.has_value();
  }
  if (key == "checkpoints") {
    out.kind = ExpectationKind::all_checkpoints_completed;
    if (normalize(value_text) == "all completed") return true;
    ctx.error(sub_loc(value, 0, value_text.size()),
              "expected 'all completed', got '" + std::string(value_text) + "'",
              "for counts write e.g. 'completed checkpoints: \">= 5\"'");
    return false;
  }
  struct Counted {
    std::string_view key;
    ExpectationKind kind;
    CheckpointCountKind count_kind;
  };
  static constexpr Counted kCounted[] = {
      {"completed checkpoints", ExpectationKind::checkpoint_count, CheckpointCountKind::completed},
      {"failed checkpoints", ExpectationKind::checkpoint_count, CheckpointCountKind::failed},
      {"expired checkpoints", ExpectationKind::checkpoint_count, CheckpointCountKind::expired},
      {"triggered checkpoints", ExpectationKind::checkpoint_count, CheckpointCountKind::triggered},
      {"restarts", ExpectationKind::restarts, CheckpointCountKind::completed},
      {"failovers", ExpectationKind::failovers, CheckpointCountKind::completed},
      {"replayed records", ExpectationKind::replayed_records, CheckpointCountKind::completed},
      {"lost records", ExpectationKind::lost_records, CheckpointCountKind::completed},
  };
  for (const Counted& counted : kCounted) {
    if (key != counted.key) continue;
    out.kind = counted.kind;
    out.count_kind = counted.count_kind;
    const auto bound = read_bound(ctx, value, value_text, 0, Quantity::count);
    if (bound) out.bound = *bound;
    return bound.has_value();
  }
  if (key == "job") return read_job(ctx, value, value_text, out);
  std::string hint = did_you_mean(entry.key, condition_keys());
  if (hint.empty()) hint = "expectations are: " + join(condition_keys(), ", ");
  ctx.error(entry.key_loc, "unknown expectation '" + entry.key + "'", hint);
  return false;
}

void read_expectation(Context& ctx, const Node& item, Expectations& out) {
  if (!item.is_map()) {
    ctx.error(item.loc, "expected an expectation such as 'job: failed-over', got " + describe(item),
              "write each expectation as 'condition: value', e.g. '- checkpoint 4: expired'");
    return;
  }
  const Entry* condition = nullptr;
  const Entry* within = nullptr;
  bool ok = true;
  for (const Entry& e : item.entries) {
    if (normalize(e.key) == "within") {
      within = &e;
    } else if (condition == nullptr) {
      condition = &e;
    } else {
      ctx.error(e.key_loc, "one expectation per list item: '" + e.key + "' follows '" +
                               condition->key + "'",
                "start another item with '- ' for '" + e.key + "'");
      ok = false;
    }
  }
  if (condition == nullptr) {
    ctx.error(item.loc, "this expectation has only 'within', no condition",
              "write e.g. '- job: failed-over' with 'within: 20 min' under it");
    return;
  }
  Expectation expectation;
  expectation.file = ctx.source_name(condition->key_loc.source);
  expectation.line = condition->key_loc.line;
  expectation.column = condition->key_loc.column;
  std::optional<std::size_t> within_offset;
  std::string_view value_text;
  if (!read_condition(ctx, *condition, expectation, within_offset, value_text)) return;
  const bool is_log = expectation.kind == ExpectationKind::log_contains ||
                      expectation.kind == ExpectationKind::log_lacks ||
                      expectation.kind == ExpectationKind::diagnosis_contains;
  expectation.text = condition->key + ": " +
                     (is_log ? "\"" + std::string(value_text) + "\"" : std::string(value_text));
  if (within_offset) {
    const std::string_view rest = std::string_view(condition->value.text).substr(*within_offset);
    expectation.within =
        read_within(ctx, sub_loc(condition->value, *within_offset, rest.size()), rest);
    if (!expectation.within) ok = false;
  }
  if (within != nullptr) {
    if (within_offset) {
      ctx.error(within->key_loc, "'within' is given twice for this expectation",
                "keep either the 'within' key or the 'within ...' after the value");
      ok = false;
    } else if (within->value.is_scalar()) {
      expectation.within = read_within(ctx, within->value.loc, within->value.text);
      if (!expectation.within) ok = false;
    } else {
      ctx.error(within->value.loc,
                "expected a duration after 'within', got " + describe(within->value),
                "write a simulated time such as 'within: 20 min'");
      ok = false;
    }
  }
  if (expectation.within && (expectation.kind == ExpectationKind::replayed_records ||
                             expectation.kind == ExpectationKind::lost_records)) {
    const std::string what = expectation.kind == ExpectationKind::replayed_records
                                 ? "replayed records"
                                 : "lost records";
    ctx.error(within != nullptr ? within->key_loc : condition->value.loc,
              "'within' does not apply to '" + what + "'",
              what + " are counted for the whole run");
    ok = false;
  }
  if (expectation.within) {
    const std::string within_text = within != nullptr
                                        ? within->value.text
                                        : condition->value.text.substr(*within_offset);
    expectation.text += " within " + std::string(trim(within_text));
  }
  if (ok) out.items.push_back(std::move(expectation));
}

}  // namespace

void read_expectations(Context& ctx, const Node& list, Expectations& out) {
  if (list.is_null()) return;
  if (!expect_sequence(ctx, list, "a list of expectations such as '- job: failed-over'")) return;
  for (const Node& item : list.items) read_expectation(ctx, item, out);
}

}  // namespace ckptsim::scenario::detail
