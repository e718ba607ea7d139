// Quantities with units as scenario files write them: durations in Flink's TimeUtils syntax,
// sizes in Flink's MemorySize syntax, rates and counts. Pure functions, no diagnostics here.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario::detail {
namespace {

struct Unit {
  std::string_view name;
  std::int64_t factor;
};

// TimeUtils.TimeUnit labels (singular and plural), plus "us" and "secs"/"mins" spellings.
constexpr Unit kDurationUnits[] = {
    {"ns", 1},
    {"nano", 1},
    {"nanos", 1},
    {"nanosecond", 1},
    {"nanoseconds", 1},
    {"us", core::kMicrosecond},
    {"\xc2\xb5s", core::kMicrosecond},  // "µs"
    {"micro", core::kMicrosecond},
    {"micros", core::kMicrosecond},
    {"microsecond", core::kMicrosecond},
    {"microseconds", core::kMicrosecond},
    {"ms", core::kMillisecond},
    {"milli", core::kMillisecond},
    {"millis", core::kMillisecond},
    {"millisecond", core::kMillisecond},
    {"milliseconds", core::kMillisecond},
    {"s", core::kSecond},
    {"sec", core::kSecond},
    {"secs", core::kSecond},
    {"second", core::kSecond},
    {"seconds", core::kSecond},
    {"m", core::kMinute},
    {"min", core::kMinute},
    {"mins", core::kMinute},
    {"minute", core::kMinute},
    {"minutes", core::kMinute},
    {"h", core::kHour},
    {"hour", core::kHour},
    {"hours", core::kHour},
    {"d", 24 * core::kHour},
    {"day", 24 * core::kHour},
    {"days", 24 * core::kHour},
};

constexpr std::int64_t kKiB = 1024;
// MemorySize.MemoryUnit labels, plus the IEC spellings "kib", "mib", ...
constexpr Unit kSizeUnits[] = {
    {"b", 1},
    {"byte", 1},
    {"bytes", 1},
    {"k", kKiB},
    {"kb", kKiB},
    {"kib", kKiB},
    {"kibibytes", kKiB},
    {"m", kKiB* kKiB},
    {"mb", kKiB* kKiB},
    {"mib", kKiB* kKiB},
    {"mebibytes", kKiB* kKiB},
    {"g", kKiB* kKiB* kKiB},
    {"gb", kKiB* kKiB* kKiB},
    {"gib", kKiB* kKiB* kKiB},
    {"gibibytes", kKiB* kKiB* kKiB},
    {"t", kKiB* kKiB* kKiB* kKiB},
    {"tb", kKiB* kKiB* kKiB* kKiB},
    {"tib", kKiB* kKiB* kKiB* kKiB},
    {"tebibytes", kKiB* kKiB* kKiB* kKiB},
};

constexpr Unit kCountSuffixes[] = {
    {"k", 1'000},
    {"m", 1'000'000},
    {"g", 1'000'000'000},
};

constexpr std::string_view kRecordWords[] = {"rows", "row", "records", "record", "events", "event",
                                              "calls", "call", "requests", "request"};

template <std::size_t N>
std::optional<std::int64_t> find_unit(const Unit (&units)[N], std::string_view name) {
  const std::string lower = to_lower(name);
  for (const Unit& unit : units)
    if (unit.name == lower) return unit.factor;
  return std::nullopt;
}

// A leading unsigned decimal number, split from what follows it.
struct Number {
  std::string_view text;  // "" when there is no number
  std::string_view rest;  // trimmed
};

Number scan_number(std::string_view text) {
  std::size_t i = 0;
  bool digit = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    digit = true;
    ++i;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      digit = true;
      ++i;
    }
  }
  if (!digit) return {{}, text};
  // Scientific notation ("1e9", "2.5E-3"): an exponent only when digits follow it, so that a
  // unit starting with 'e' is still a unit.
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      i = j;
    }
  }
  return {text.substr(0, i), trim(text.substr(i))};
}

// number * factor, exact for integers, rounded to the nearest unit for decimals.
template <typename T>
Parsed<T> scale(std::string_view number, std::int64_t factor) {
  Parsed<T> out;
  if (number.find_first_of(".eE") == std::string_view::npos) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    std::int64_t product = 0;
    if (ec != std::errc() || end != number.data() + number.size() ||
        __builtin_mul_overflow(value, factor, &product)) {
      out.error = UnitError::overflow;
      return out;
    }
    out.value = product;
    return out;
  }
  const long double value =
      std::strtold(std::string(number).c_str(), nullptr) * static_cast<long double>(factor);
  if (!(value < static_cast<long double>(std::numeric_limits<std::int64_t>::max()))) {
    out.error = UnitError::overflow;
    return out;
  }
  out.value = static_cast<std::int64_t>(std::llroundl(value));
  return out;
}

template <typename T, std::size_t N>
Parsed<T> parse_with_units(std::string_view text, const Unit (&units)[N], std::int64_t bare) {
  Parsed<T> out;
  text = trim(text);
  if (text.empty()) {
    out.error = UnitError::empty;
    return out;
  }
  if (text.front() == '-') {
    out.error = UnitError::negative;
    return out;
  }
  const Number number = scan_number(text);
  if (number.text.empty()) {
    out.error = UnitError::no_number;
    return out;
  }
  std::int64_t factor = bare;
  if (!number.rest.empty()) {
    const std::optional<std::int64_t> unit = find_unit(units, number.rest);
    if (!unit) {
      out.error = UnitError::unknown_unit;
      out.unit = std::string(number.rest);
      return out;
    }
    factor = *unit;
  }
  return scale<T>(number.text, factor);
}

template <std::size_t N>
std::vector<std::string> names_of(const Unit (&units)[N]) {
  std::vector<std::string> names;
  for (const Unit& unit : units) names.emplace_back(unit.name);
  return names;
}

bool is_record_word(std::string_view word) {
  const std::string lower = to_lower(word);
  for (std::string_view w : kRecordWords)
    if (w == lower) return true;
  return false;
}

}  // namespace

Parsed<core::Duration> parse_duration_detail(std::string_view text, bool compound) {
  // Flink's Duration options read a bare number as milliseconds.
  Parsed<core::Duration> first = parse_with_units<core::Duration>(text, kDurationUnits,
                                                                  core::kMillisecond);
  if (first.error != UnitError::unknown_unit) return first;
  // "4 min 30 s": parts of one number and one unit each, summed. Flink's TimeUtils takes one
  // part only; the caller says whether more are allowed.
  Parsed<core::Duration> sum;
  sum.value = 0;
  std::string_view rest = trim(text);
  int parts = 0;
  while (!rest.empty()) {
    const Number number = scan_number(rest);
    if (number.text.empty()) return first;
    std::size_t unit_end = 0;
    while (unit_end < number.rest.size() &&
           !std::isdigit(static_cast<unsigned char>(number.rest[unit_end])) &&
           number.rest[unit_end] != ' ')
      ++unit_end;
    const std::string_view unit_name = number.rest.substr(0, unit_end);
    const std::optional<std::int64_t> unit = find_unit(kDurationUnits, unit_name);
    if (unit_name.empty() || !unit) {
      if (parts == 0) return first;
      sum.value.reset();
      sum.error = UnitError::unknown_unit;
      sum.unit = std::string(unit_name.empty() ? number.rest : unit_name);
      return sum;
    }
    const Parsed<core::Duration> part = scale<core::Duration>(number.text, *unit);
    core::Duration total = 0;
    if (!part.value || __builtin_add_overflow(*sum.value, *part.value, &total)) {
      sum.value.reset();
      sum.error = UnitError::overflow;
      return sum;
    }
    sum.value = total;
    ++parts;
    rest = trim(number.rest.substr(unit_end));
  }
  if (parts < 2) return first;
  if (!compound) {
    sum.value.reset();
    sum.error = UnitError::compound;
  }
  return sum;
}

Parsed<std::int64_t> parse_size_detail(std::string_view text) {
  return parse_with_units<std::int64_t>(text, kSizeUnits, 1);
}

Parsed<Rate> parse_rate_detail(std::string_view text) {
  Parsed<Rate> out;
  text = trim(text);
  if (text.empty()) {
    out.error = UnitError::empty;
    return out;
  }
  if (text.front() == '-') {
    out.error = UnitError::negative;
    return out;
  }
  const std::size_t slash = text.find('/');
  const std::string_view amount = trim(text.substr(0, slash));
  double seconds = 1.0;
  if (slash != std::string_view::npos) {
    const std::string_view per = trim(text.substr(slash + 1));
    const std::optional<std::int64_t> unit = find_unit(kDurationUnits, per);
    if (!unit) {
      out.error = UnitError::unknown_unit;
      out.unit = std::string(per);
      return out;
    }
    seconds = static_cast<double>(*unit) / static_cast<double>(core::kSecond);
  }
  const Number number = scan_number(amount);
  if (number.text.empty()) {
    out.error = UnitError::no_number;
    return out;
  }
  double value = std::strtod(std::string(number.text).c_str(), nullptr);
  bool bytes = false;
  std::string_view rest = number.rest;
  if (!rest.empty() && !is_record_word(rest)) {
    // "2k rows": a count suffix, then optionally a record word.
    const std::size_t space = rest.find(' ');
    const std::string_view head = rest.substr(0, space);
    const std::string_view tail = space == std::string_view::npos ? "" : trim(rest.substr(space));
    const std::optional<std::int64_t> multiplier = find_unit(kCountSuffixes, head);
    const std::optional<std::int64_t> size = find_unit(kSizeUnits, rest);
    if (multiplier && (tail.empty() || is_record_word(tail))) {
      value *= static_cast<double>(*multiplier);
    } else if (size && (rest.size() > 1 || to_lower(rest) == "b")) {
      // Bytes need a unit with a 'b' ("MB", "mib", "b"): a bare "M" is a count (million).
      value *= static_cast<double>(*size);
      bytes = true;
    } else {
      out.error = UnitError::unknown_unit;
      out.unit = std::string(rest);
      return out;
    }
  }
  // Far above any real source or link; a 400-digit number was read as infinity and overflowed
  // the model's record counts (UBSan, issue 18 item 9).
  // scenarios/oracles/daly.yaml writes "1 TB/s" for storage that never limits.
  const double max_per_second = bytes ? 1125899906842624.0 /* 1 PB */ : 1e12;
  if (!(value / seconds <= max_per_second)) {
    out.error = UnitError::overflow;
    return out;
  }
  out.value = Rate{value / seconds, bytes};
  return out;
}

const std::vector<std::string>& duration_unit_names() {
  static const std::vector<std::string> names = names_of(kDurationUnits);
  return names;
}

std::string format_duration(core::Duration duration) {
  static constexpr Unit kUnits[] = {{"d", 24 * core::kHour},    {"h", core::kHour},
                                    {"min", core::kMinute},     {"s", core::kSecond},
                                    {"ms", core::kMillisecond}, {"us", core::kMicrosecond}};
  for (const Unit& unit : kUnits)
    if (duration != 0 && duration % unit.factor == 0)
      return std::to_string(duration / unit.factor) + " " + std::string(unit.name);
  return std::to_string(duration) + " ns";
}

const std::vector<std::string>& size_unit_names() {
  static const std::vector<std::string> names = names_of(kSizeUnits);
  return names;
}

}  // namespace ckptsim::scenario::detail

namespace ckptsim::scenario {

std::optional<core::Duration> parse_duration(std::string_view text) {
  return detail::parse_duration_detail(text, true).value;
}

std::optional<std::int64_t> parse_size(std::string_view text) {
  return detail::parse_size_detail(text).value;
}

std::optional<double> parse_rate(std::string_view text) {
  const auto parsed = detail::parse_rate_detail(text);
  if (!parsed.value) return std::nullopt;
  return parsed.value->per_second;
}

std::optional<std::int64_t> parse_count(std::string_view text) {
  text = detail::trim(text);
  if (text.empty() || text.front() == '-') return std::nullopt;
  const detail::Number number = detail::scan_number(text);
  if (number.text.empty()) return std::nullopt;
  std::int64_t factor = 1;
  if (!number.rest.empty()) {
    const std::optional<std::int64_t> suffix =
        detail::find_unit(detail::kCountSuffixes, number.rest);
    if (!suffix) return std::nullopt;
    factor = *suffix;
  }
  return detail::scale<std::int64_t>(number.text, factor).value;
}

}  // namespace ckptsim::scenario
