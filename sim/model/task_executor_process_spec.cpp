#include "sim/model/task_executor_process_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>

#include "sim/model/config.hpp"

namespace ckptsim::model {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;
constexpr std::int64_t kMaxSize = std::numeric_limits<std::int64_t>::max();  // MemorySize.MAX_VALUE

// ProcessMemoryUtils.RangeFraction.
struct RangeFraction {
  std::int64_t min = 0;
  std::int64_t max = 0;
  double fraction = 0;
};

using Result = std::variant<TaskExecutorProcessSpec, std::string>;
// Byte counts times 17 significant digits need more than 64 bits (GCC and Clang have 128).
__extension__ using Int128 = __int128;

// The messages' "{}" filled in order (the model layer has no fmt: ARCHITECTURE.md).
std::string fill(std::string_view pattern, std::initializer_list<std::string> values) {
  std::string out;
  auto value = values.begin();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "{}") == 0 && value != values.end()) {
      out += *value++;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// Java's String.valueOf(double) for the fractions ("0.10000000149011612").
std::string java_double(double d) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, d).ptr;
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// ProcessMemoryUtils.getRangeFraction: `description` is the fraction option's
// ConfigOption.toString, which the error prints.
std::variant<RangeFraction, std::string> range_fraction(std::int64_t min, std::int64_t max,
                                                        float fraction,
                                                        std::string_view description) {
  const double f = static_cast<double>(fraction);  // config.getFloat widened
  if (min > max || !(f >= 0 && f < 1))
    return fill("Inconsistently configured {} ({}) and its min ({}), max ({}) value ({})",
                {std::string(description), java_double(f), human_readable_size(min),
                 human_readable_size(max),
                 min > max ? "min value must be less or equal to max value"
                           : "fraction must be in range [0, 1)"});
  return RangeFraction{min, max, f};
}

std::int64_t cap(std::int64_t v, const RangeFraction& r) {
  return v > r.max ? r.max : v < r.min ? r.min : v;
}

std::int64_t derive_with_fraction(std::int64_t base, const RangeFraction& r) {
  return cap(multiply_size(base, r.fraction), r);
}

std::int64_t derive_with_inverse_fraction(std::int64_t base, const RangeFraction& r) {
  return cap(multiply_size(base, r.fraction / (1 - r.fraction)), r);
}

constexpr std::string_view kNetworkFraction =
    "Key: 'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: "
    "[{key=taskmanager.network.memory.fraction, isDeprecated=true}])";
constexpr std::string_view kOverheadFraction =
    "Key: 'taskmanager.memory.jvm-overhead.fraction' , default: 0.1 (fallback keys: [])";
constexpr std::string_view kManagedFraction =
    "Key: 'taskmanager.memory.managed.fraction' , default: 0.4 (fallback keys: [])";

// Sizes are summed: each is held to 2^52 bytes (4 PiB, far beyond any machine) so that no sum
// overflows; network.max keeps "infinite", which is only compared.
TaskManagerMemoryOptions bounded(TaskManagerMemoryOptions o) {
  constexpr std::int64_t kLargest = std::int64_t{1} << 52;
  for (std::optional<std::int64_t>* size :
       {&o.process_size, &o.flink_size, &o.task_heap, &o.managed_size, &o.network_min,
        &o.framework_heap, &o.framework_off_heap, &o.task_off_heap, &o.metaspace, &o.overhead_min,
        &o.overhead_max})
    if (*size) **size = std::min(**size, kLargest);
  return o;
}

class Derivation {
 public:
  Derivation(const TaskManagerMemoryOptions& o, std::int64_t segment_size, FlinkVersion version)
      : o_(o), segment_size_(segment_size), version_(version) {}

  Result run() {
    // ProcessMemoryUtils.memoryProcessSpecFromConfig: the three ways in, in this order.
    std::optional<std::string> error;
    if (o_.task_heap && o_.managed_size) {
      error = from_fine_grained();
      if (!error) error = overhead_from_total_flink();
    } else if (o_.flink_size) {
      error = from_total_flink(*o_.flink_size);
      if (!error) error = overhead_from_total_flink();
    } else {
      error = from_total_process(o_.process_size.value_or(1728 * kMiB));
    }
    if (error) return "TaskManager memory configuration failed: " + *error;
    s_.total_process = s_.total_flink + s_.metaspace + s_.overhead;
    const std::int64_t buffers = s_.network / segment_size_;
    if (buffers > std::numeric_limits<int>::max())
      return fill(
          "The given number of memory bytes ({}) corresponds to more than MAX_INT "
          "pages.",
          {std::to_string(s_.network)});
    s_.network_buffers = static_cast<int>(buffers);
    return s_;
  }

 private:
  std::variant<RangeFraction, std::string> network_range() const {
    // network.max: 1 GiB until 1.16, MemorySize.MAX_VALUE from 1.17 (FLINK-30472).
    const std::int64_t default_max = version_ < FlinkVersion::v1_17 ? 1024 * kMiB : kMaxSize;
    return range_fraction(o_.network_min.value_or(64 * kMiB), o_.network_max.value_or(default_max),
                          o_.network_fraction.value_or(0.1F), kNetworkFraction);
  }
  std::variant<RangeFraction, std::string> overhead_range() const {
    return range_fraction(o_.overhead_min.value_or(192 * kMiB),
                          o_.overhead_max.value_or(1024 * kMiB),
                          o_.overhead_fraction.value_or(0.1F), kOverheadFraction);
  }
  // TaskExecutorFlinkMemoryUtils.isUsingLegacyNetworkConfigs (gone in 2.0).
  bool legacy_network() const {
    return version_ < FlinkVersion::v2_0 && o_.legacy_buffers && !o_.network_min &&
           !o_.network_max && !o_.network_fraction;
  }
  std::int64_t legacy_network_size() const {
    return static_cast<std::int64_t>(*o_.legacy_buffers) * segment_size_;
  }
  std::int64_t framework_heap() const { return o_.framework_heap.value_or(128 * kMiB); }
  std::int64_t framework_off_heap() const { return o_.framework_off_heap.value_or(128 * kMiB); }
  std::int64_t task_off_heap() const { return o_.task_off_heap.value_or(0); }
  std::int64_t metaspace() const { return o_.metaspace.value_or(256 * kMiB); }

  std::optional<std::string> managed(std::int64_t total_flink) {
    if (o_.managed_size) {
      s_.managed = *o_.managed_size;
      return std::nullopt;
    }
    const auto r =
        range_fraction(0, kMaxSize, o_.managed_fraction.value_or(0.4F), kManagedFraction);
    if (const auto* e = std::get_if<std::string>(&r)) return *e;
    s_.managed = derive_with_fraction(total_flink, std::get<RangeFraction>(r));
    return std::nullopt;
  }

  void set_fixed_parts() {
    s_.framework_heap = framework_heap();
    s_.framework_off_heap = framework_off_heap();
    s_.task_off_heap = task_off_heap();
  }

  std::string sum_without_network_error(std::int64_t total_flink) const {
    return fill(
        "Sum of configured Framework Heap Memory ({}), Framework Off-Heap Memory "
        "({}), Task Heap Memory ({}), Task Off-Heap Memory ({}) and Managed Memory "
        "({}) exceed configured Total Flink Memory ({}).",
        {human_readable_size(s_.framework_heap), human_readable_size(s_.framework_off_heap),
         human_readable_size(s_.task_heap), human_readable_size(s_.task_off_heap),
         human_readable_size(s_.managed), human_readable_size(total_flink)});
  }

  // sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory.
  std::optional<std::string> check_network_rest() const {
    std::string cause;
    if (legacy_network()) {
      if (s_.network != legacy_network_size())
        cause = fill(
            "Derived Network Memory size ({}) does not match configured Network "
            "Memory size ({}).",
            {human_readable_size(s_.network), human_readable_size(legacy_network_size())});
    } else {
      const auto r = network_range();
      if (const auto* e = std::get_if<std::string>(&r)) return *e;
      const RangeFraction& range = std::get<RangeFraction>(r);
      if (s_.network < range.min || s_.network > range.max)
        cause = fill(
            "Derived Network Memory size ({}) is not in configured Network Memory "
            "range [{}, {}].",
            {human_readable_size(s_.network), human_readable_size(range.min),
             human_readable_size(range.max)});
    }
    if (cause.empty()) return std::nullopt;
    return "If Total Flink, Task Heap and (or) Managed Memory sizes are explicitly configured then "
           "the Network Memory size is the rest of the Total Flink memory after subtracting all "
           "other configured types of memory, but the derived Network Memory is inconsistent with "
           "its configuration. Caused by: " +
           cause;
  }

  // sanityCheckTotalFlinkMemory.
  std::optional<std::string> check_total_flink() const {
    if (!o_.flink_size || *o_.flink_size == s_.total_flink) return std::nullopt;
    return fill(
        "Configured and Derived Flink internal memory sizes (total {}) do not add up to the "
        "configured Total Flink Memory size ({}). Configured and Derived Flink internal memory "
        "sizes are: Framework Heap Memory ({}), Framework Off-Heap Memory ({}), Task Heap Memory "
        "({}), Task Off-Heap Memory ({}), Network Memory ({}), Managed Memory ({}).",
        {human_readable_size(s_.total_flink), human_readable_size(*o_.flink_size),
         human_readable_size(s_.framework_heap), human_readable_size(s_.framework_off_heap),
         human_readable_size(s_.task_heap), human_readable_size(s_.task_off_heap),
         human_readable_size(s_.network), human_readable_size(s_.managed)});
  }

  void sum_total_flink() {
    s_.total_flink = s_.framework_heap + s_.framework_off_heap + s_.task_heap + s_.task_off_heap +
                     s_.managed + s_.network;
  }

  // TaskExecutorFlinkMemoryUtils.deriveFromRequiredFineGrainedOptions.
  std::optional<std::string> from_fine_grained() {
    set_fixed_parts();
    s_.task_heap = *o_.task_heap;
    s_.managed = *o_.managed_size;
    const std::int64_t without_network =
        s_.framework_heap + s_.framework_off_heap + s_.task_heap + s_.task_off_heap + s_.managed;
    if (o_.flink_size) {
      if (without_network > *o_.flink_size) return sum_without_network_error(*o_.flink_size);
      s_.network = *o_.flink_size - without_network;
      if (auto e = check_network_rest()) return e;
    } else if (legacy_network()) {
      s_.network = legacy_network_size();
    } else {
      const auto r = network_range();
      if (const auto* e = std::get_if<std::string>(&r)) return *e;
      s_.network = derive_with_inverse_fraction(without_network, std::get<RangeFraction>(r));
    }
    sum_total_flink();
    return check_total_flink();
  }

  // TaskExecutorFlinkMemoryUtils.deriveFromTotalFlinkMemory.
  std::optional<std::string> from_total_flink(std::int64_t total_flink) {
    set_fixed_parts();
    if (auto e = managed(total_flink)) return e;
    if (o_.task_heap) {
      s_.task_heap = *o_.task_heap;
      const std::int64_t without_network =
          s_.framework_heap + s_.framework_off_heap + s_.task_heap + s_.task_off_heap + s_.managed;
      if (without_network > total_flink) return sum_without_network_error(total_flink);
      s_.network = total_flink - without_network;
      if (auto e = check_network_rest()) return e;
    } else {
      if (legacy_network()) {
        s_.network = legacy_network_size();
      } else {
        const auto r = network_range();
        if (const auto* e = std::get_if<std::string>(&r)) return *e;
        s_.network = derive_with_fraction(total_flink, std::get<RangeFraction>(r));
      }
      const std::int64_t without_heap =
          s_.framework_heap + s_.framework_off_heap + s_.task_off_heap + s_.managed + s_.network;
      if (without_heap > total_flink)
        return fill(
            "Sum of configured Framework Heap Memory ({}), Framework Off-Heap Memory ({}), Task "
            "Off-Heap Memory ({}), Managed Memory ({}) and Network Memory ({}) exceed configured "
            "Total Flink Memory ({}).",
            {human_readable_size(s_.framework_heap), human_readable_size(s_.framework_off_heap),
             human_readable_size(s_.task_off_heap), human_readable_size(s_.managed),
             human_readable_size(s_.network), human_readable_size(total_flink)});
      s_.task_heap = total_flink - without_heap;
    }
    sum_total_flink();
    return check_total_flink();
  }

  // ProcessMemoryUtils.deriveProcessSpecWithTotalProcessMemory.
  std::optional<std::string> from_total_process(std::int64_t process) {
    const auto r = overhead_range();
    if (const auto* e = std::get_if<std::string>(&r)) return *e;
    s_.metaspace = metaspace();
    s_.overhead = derive_with_fraction(process, std::get<RangeFraction>(r));
    if (s_.metaspace + s_.overhead > process)
      return fill(
          "Sum of configured JVM Metaspace ({}) and JVM Overhead ({}) exceed "
          "configured Total Process Memory ({}).",
          {human_readable_size(s_.metaspace), human_readable_size(s_.overhead),
           human_readable_size(process)});
    return from_total_flink(process - s_.metaspace - s_.overhead);
  }

  // ProcessMemoryUtils.deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory.
  std::optional<std::string> overhead_from_total_flink() {
    s_.metaspace = metaspace();
    const auto r = overhead_range();
    if (const auto* e = std::get_if<std::string>(&r)) return *e;
    const RangeFraction& range = std::get<RangeFraction>(r);
    const std::int64_t flink_and_metaspace = s_.total_flink + s_.metaspace;
    if (o_.process_size) {
      const std::int64_t process = *o_.process_size;
      if (process < flink_and_metaspace)
        return fill(
            "The configured Total Process Memory size ({}) is less than the sum of "
            "the derived Total Flink Memory size ({}) and the configured or "
            "default JVM Metaspace size  ({}).",
            {human_readable_size(process), human_readable_size(s_.total_flink),
             human_readable_size(s_.metaspace)});
      s_.overhead = process - flink_and_metaspace;
      if (s_.overhead < range.min || s_.overhead > range.max)
        return fill(
            "Derived JVM Overhead size ({}) is not in configured JVM Overhead "
            "range [{}, {}].",
            {human_readable_size(s_.overhead), human_readable_size(range.min),
             human_readable_size(range.max)});
      return std::nullopt;
    }
    s_.overhead = derive_with_inverse_fraction(flink_and_metaspace, range);
    return std::nullopt;
  }

  const TaskManagerMemoryOptions o_;
  std::int64_t segment_size_;
  FlinkVersion version_;
  TaskExecutorProcessSpec s_;
};

}  // namespace

std::int64_t multiply_size(std::int64_t bytes, double multiplier) {
  // BigDecimal.valueOf(double) goes through Double.toString: the shortest decimal that reads
  // back as the same double, which std::to_chars also gives.
  char buf[64];
  const auto end =
      std::to_chars(buf, buf + sizeof buf, multiplier, std::chars_format::scientific).ptr;
  const std::string text(buf, end);  // "1.0000000149011612e-01"
  const std::size_t e = text.find('e');
  Int128 digits = 0;
  int fraction_digits = 0;
  bool after_point = false;
  for (std::size_t i = 0; i < e; ++i) {
    if (text[i] == '.') {
      after_point = true;
      continue;
    }
    if (text[i] < '0' || text[i] > '9') continue;  // a sign
    digits = digits * 10 + (text[i] - '0');
    if (after_point) ++fraction_digits;
  }
  const int exponent = std::atoi(text.c_str() + e + 1) - fraction_digits;
  Int128 product = static_cast<Int128>(bytes) * digits;
  for (int i = 0; i < exponent; ++i) product *= 10;
  for (int i = 0; i > exponent && product != 0; --i) product /= 10;  // truncates toward zero
  if (multiplier < 0) product = -product;
  if (product > kMaxSize) return kMaxSize;
  return static_cast<std::int64_t>(product);
}

std::string human_readable_size(std::int64_t bytes) {
  if (bytes == 0) return "0 bytes";
  constexpr std::int64_t kUnits[] = {std::int64_t{1} << 40, std::int64_t{1} << 30, kMiB, 1024};
  constexpr const char* kNames[] = {"tb", "gb", "mb", "kb"};
  for (int i = 0; i < 4; ++i)
    if (bytes > kUnits[i]) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3f%s (%lld bytes)",
                    static_cast<double>(bytes) / static_cast<double>(kUnits[i]), kNames[i],
                    static_cast<long long>(bytes));
      return text;
    }
  return std::to_string(bytes) + " bytes";
}

std::variant<TaskExecutorProcessSpec, std::string> process_spec_from_config(
    const TaskManagerMemoryOptions& written, std::int64_t segment_size, FlinkVersion version) {
  const TaskManagerMemoryOptions options = bounded(written);
  if (options.local_execution) {
    // TaskExecutorResourceUtils.adjustForLocalExecution: one of min/max copies the other; neither
    // means DEFAULT_SHUFFLE_MEMORY_SIZE (64 MiB). The other sizes play no part in the buffers.
    if (written.network_min && written.network_max && *written.network_min != *written.network_max)
      return fill(
          "The network memory min ({}) and max ({}) mismatch, the network memory "
          "has to be resolved and set to a fixed value before task executor starts",
          {human_readable_size(*written.network_min), human_readable_size(*written.network_max)});
    TaskExecutorProcessSpec s;
    s.network = options.network_min.value_or(
        std::min(options.network_max.value_or(64 * kMiB), std::int64_t{1} << 52));
    s.network_buffers = static_cast<int>(
        std::min<std::int64_t>(s.network / segment_size, std::numeric_limits<int>::max()));
    // The rest as adjustForLocalExecution sets it: task heap and off-heap "unlimited" (1 TiB),
    // managed 128m, the framework and JVM parts at their defaults (overhead min = max = 1g).
    constexpr std::int64_t kLocalTaskMemory = 1024 * 1024 * kMiB;
    s.framework_heap = options.framework_heap.value_or(128 * kMiB);
    s.framework_off_heap = options.framework_off_heap.value_or(128 * kMiB);
    s.task_heap = options.task_heap.value_or(kLocalTaskMemory);
    s.task_off_heap = options.task_off_heap.value_or(kLocalTaskMemory);
    s.managed = options.managed_size.value_or(128 * kMiB);
    s.metaspace = options.metaspace.value_or(256 * kMiB);
    s.overhead = 1024 * kMiB;
    s.total_flink = s.framework_heap + s.framework_off_heap + s.task_heap + s.task_off_heap +
                    s.managed + s.network;
    s.total_process = s.total_flink + s.metaspace + s.overhead;
    return s;
  }
  return Derivation(options, segment_size, version).run();
}

}  // namespace ckptsim::model
