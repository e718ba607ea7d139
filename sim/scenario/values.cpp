// Typed readers of scenario values: each returns the value, or reports one diagnostic at the
// value's location and returns nullopt, so a file with many mistakes gets them all reported.
#include <charconv>
#include <limits>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

const char* const kDurationHint =
    "write a number and a time unit (ns, us, ms, s, min, h, d); a bare number means "
    "milliseconds";
const char* const kSizeHint = "write a number and a unit (b, kb, mb, gb, tb; 1 kb = 1024 bytes)";

template <typename T>
std::optional<T> report_unit_error(Context& ctx, const Node& node, const Parsed<T>& parsed,
                                   std::string_view kind, std::string_view example,
                                   const std::vector<std::string>& units, const char* hint) {
  switch (parsed.error) {
    case UnitError::none:
      return parsed.value;
    case UnitError::negative:
      ctx.error(node.loc, std::string(kind) + "s cannot be negative",
                "write zero or a positive " + std::string(kind) + " such as '" +
                    std::string(example) + "'");
      break;
    case UnitError::unknown_unit: {
      std::string unit_hint = did_you_mean(parsed.unit, units);
      ctx.error(
          node.loc,
          "unknown unit '" + parsed.unit + "' in " + std::string(kind) + " '" + node.text + "'",
          unit_hint.empty() ? hint : unit_hint);
      break;
    }
    case UnitError::overflow:
      ctx.error(node.loc, std::string(kind) + " '" + node.text + "' is too large");
      break;
    case UnitError::compound:
    {
      const auto whole = parse_duration_detail(node.text, true).value;
      ctx.error(node.loc,
                "a Flink option's " + std::string(kind) + " is one number and one unit, got '" +
                    node.text + "'",
                "Flink's TimeUtils.parseDuration reads no parts" +
                    (whole ? "; write '" + format_duration(*whole) + "'" : std::string()));
    }
      break;
    case UnitError::empty:
    case UnitError::no_number:
      ctx.error(node.loc,
                "expected a " + std::string(kind) + " such as '" + std::string(example) +
                    "', got " + describe(node),
                hint);
      break;
  }
  return std::nullopt;
}

bool expect_scalar(Context& ctx, const Node& node, std::string_view expected, const char* hint) {
  if (node.is_scalar()) return true;
  ctx.error(node.loc, "expected " + std::string(expected) + ", got " + describe(node),
            hint == nullptr ? "" : hint);
  return false;
}

}  // namespace

std::string describe(const Node& node) {
  switch (node.kind) {
    case Node::Kind::null:
      return "nothing";
    case Node::Kind::map:
      return "a map";
    case Node::Kind::sequence:
      return "a list";
    case Node::Kind::scalar:
      return "'" + node.text + "'";
  }
  return "?";
}

std::optional<std::string> read_string(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "a text value", nullptr)) return std::nullopt;
  return node.text;
}

std::optional<std::string> read_name(Context& ctx, const Node& node, std::string_view what) {
  auto text = read_string(ctx, node);
  if (text && text->size() > kMaxNameLength) {
    ctx.error(node.loc,
              std::string(what) + " is " + std::to_string(text->size()) +
                  " characters long; the most is " + std::to_string(kMaxNameLength),
              "give it a shorter name");
    return std::nullopt;
  }
  return text;
}

std::optional<core::Duration> read_duration(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "a duration such as '10 min'", kDurationHint)) return std::nullopt;
  return report_unit_error(ctx, node, parse_duration_detail(node.text, true), "duration",
                           "10 min", duration_unit_names(), kDurationHint);
}

std::optional<core::Duration> read_flink_duration(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "a duration such as '10 min'", kDurationHint)) return std::nullopt;
  return report_unit_error(ctx, node, parse_duration_detail(node.text, false), "duration",
                           "10 min", duration_unit_names(), kDurationHint);
}

std::optional<model::CostLaw> read_cost_law(Context& ctx, const Node& node) {
  if (!node.is_map()) {
    const auto d = read_duration(ctx, node);
    if (!d) return std::nullopt;
    return model::CostLaw::constant(*d);
  }
  static const std::vector<std::string> keys = {"base", "per-checkpoint",
                                                "per-mb-since-checkpoint", "per-mb-state",
                                                "per-minute-since-start", "per-table"};
  model::CostLaw law;
  bool ok = true;
  for (const Entry& e : node.entries) {
    const auto d = read_duration(ctx, e.value);
    if (!d) {
      ok = false;
      continue;
    }
    if (e.key == "base")
      law.base = *d;
    else if (e.key == "per-checkpoint")
      law.per_checkpoint = *d;
    else if (e.key == "per-mb-since-checkpoint")
      law.per_mb_since_checkpoint = *d;
    else if (e.key == "per-mb-state")
      law.per_mb_state = *d;
    else if (e.key == "per-minute-since-start")
      law.per_minute_since_start = *d;
    else if (e.key == "per-table")
      law.per_table = *d;
    else {
      unknown_key(ctx, e, "cost", keys);
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return law;
}

std::optional<std::int64_t> read_size(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "a size such as '32 kb'", kSizeHint)) return std::nullopt;
  return report_unit_error(ctx, node, parse_size_detail(node.text), "size", "32 kb",
                           size_unit_names(), kSizeHint);
}

std::optional<std::int64_t> read_int64(Context& ctx, const Node& node, std::string_view what,
                                       std::int64_t min, std::int64_t max) {
  if (!expect_scalar(ctx, node, "an integer", nullptr)) return std::nullopt;
  const std::string_view text = trim(node.text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    ctx.error(node.loc, "expected an integer, got " + describe(node));
    return std::nullopt;
  }
  if (value < min) {
    ctx.error(node.loc, std::string(what) + " must be at least " + std::to_string(min) + ", got " +
                            std::to_string(value));
    return std::nullopt;
  }
  if (value > max) {
    ctx.error(node.loc, std::string(what) + " must be at most " + std::to_string(max) + ", got " +
                            std::to_string(value));
    return std::nullopt;
  }
  return value;
}

std::optional<int> read_int(Context& ctx, const Node& node, std::string_view what, int min) {
  const auto value = read_int64(ctx, node, what, min, std::numeric_limits<int>::max());
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

std::optional<std::uint64_t> read_uint64(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "a non-negative integer", nullptr)) return std::nullopt;
  const std::string_view text = trim(node.text);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    ctx.error(node.loc, "expected a non-negative integer, got " + describe(node));
    return std::nullopt;
  }
  return value;
}

std::optional<double> read_double(Context& ctx, const Node& node, std::string_view what, double min,
                                  double max) {
  if (!expect_scalar(ctx, node, "a number", nullptr)) return std::nullopt;
  const std::string_view text = trim(node.text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    ctx.error(node.loc, "expected a number, got " + describe(node));
    return std::nullopt;
  }
  if (value < min || value > max) {
    std::string range = max == std::numeric_limits<double>::max()
                            ? "at least " + std::to_string(min)
                            : "between " + std::to_string(min) + " and " + std::to_string(max);
    // std::to_string prints 6 decimals; drop the trailing zeros.
    for (std::size_t p; (p = range.find(".000000")) != std::string::npos;) range.erase(p, 7);
    ctx.error(node.loc, std::string(what) + " must be " + range + ", got " + std::string(text));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> read_bool(Context& ctx, const Node& node) {
  if (!expect_scalar(ctx, node, "true or false", nullptr)) return std::nullopt;
  const std::string lower = to_lower(trim(node.text));
  if (lower == "true") return true;
  if (lower == "false") return false;
  ctx.error(node.loc, "expected true or false, got " + describe(node));
  return std::nullopt;
}

std::optional<std::size_t> read_choice(Context& ctx, const Node& node, std::string_view what,
                                       const std::vector<std::string>& names,
                                       const std::vector<std::string>& shown) {
  const std::string allowed = "allowed values: " + join(shown.empty() ? names : shown, ", ");
  if (!node.is_scalar()) {
    ctx.error(node.loc, "expected a " + std::string(what) + ", got " + describe(node), allowed);
    return std::nullopt;
  }
  const std::string lower = to_lower(trim(node.text));
  for (std::size_t i = 0; i < names.size(); ++i)
    if (to_lower(names[i]) == lower) return i;
  const std::string suggestion = did_you_mean(node.text, names);
  ctx.error(node.loc, "unknown " + std::string(what) + " '" + node.text + "'",
            suggestion.empty() ? allowed : suggestion + " " + allowed);
  return std::nullopt;
}

bool expect_map(Context& ctx, const Node& node, std::string_view what) {
  if (node.is_map()) return true;
  ctx.error(node.loc, "expected " + std::string(what) + ", got " + describe(node));
  return false;
}

bool expect_sequence(Context& ctx, const Node& node, std::string_view what) {
  if (node.is_sequence()) return true;
  ctx.error(node.loc, "expected " + std::string(what) + ", got " + describe(node));
  return false;
}

std::optional<double> read_rate(Context& ctx, const Node& node, bool bytes) {
  const char* example =
      bytes ? "a bandwidth such as '200 MB/s'" : "a rate such as '5000 records/s'";
  if (!node.is_scalar()) {
    ctx.error(node.loc, std::string("expected ") + example + ", got " + describe(node));
    return std::nullopt;
  }
  const auto parsed = parse_rate_detail(node.text);
  if (parsed.error == UnitError::negative) {
    ctx.error(node.loc, "rates cannot be negative", std::string("write ") + example);
    return std::nullopt;
  }
  if (parsed.error == UnitError::overflow) {
    ctx.error(node.loc, "rate '" + node.text + "' is too large",
              "a rate is at most 10^12 records or 1 PB per second");
    return std::nullopt;
  }
  if (!parsed.value) {
    std::string message = std::string("expected ") + example + ", got " + describe(node);
    if (parsed.error == UnitError::unknown_unit)
      message = "unknown unit '" + parsed.unit + "' in rate '" + node.text + "'";
    ctx.error(node.loc, message,
              bytes ? "write a size per time unit: '20 MB/s', '512 kb/s'"
                    : "write records per time unit: '5000 records/s', '2k rows/s', '600 rows/min'");
    return std::nullopt;
  }
  if (parsed.value->bytes != bytes) {
    ctx.error(
        node.loc, std::string("expected ") + example + ", got " + describe(node),
        bytes ? "a bandwidth is bytes per time unit, e.g. '200 MB/s'"
              : "a source rate counts records, e.g. '5000 records/s'; sizes go in 'record-size'");
    return std::nullopt;
  }
  return parsed.value->per_second;
}

}  // namespace ckptsim::scenario::detail
