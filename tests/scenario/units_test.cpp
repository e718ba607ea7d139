// Unit tests of the parsers of quantities with units (durations, sizes, rates, counts).
#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"

using ckptsim::core::kHour;
using ckptsim::core::kMicrosecond;
using ckptsim::core::kMillisecond;
using ckptsim::core::kMinute;
using ckptsim::core::kSecond;
using ckptsim::scenario::parse_count;
using ckptsim::scenario::parse_duration;
using ckptsim::scenario::parse_rate;
using ckptsim::scenario::parse_size;

TEST_CASE("durations are read in Flink's TimeUtils syntax") {
  CHECK(parse_duration("100 ms") == 100 * kMillisecond);
  CHECK(parse_duration("10 s") == 10 * kSecond);
  CHECK(parse_duration("10s") == 10 * kSecond);
  CHECK(parse_duration("3 min") == 3 * kMinute);
  CHECK(parse_duration("10min") == 10 * kMinute);
  CHECK(parse_duration("2 h") == 2 * kHour);
  CHECK(parse_duration("1 d") == 24 * kHour);
  CHECK(parse_duration("1 day") == 24 * kHour);
  CHECK(parse_duration("2 days") == 48 * kHour);
  CHECK(parse_duration("5 us") == 5 * kMicrosecond);
  CHECK(parse_duration("7 ns") == 7);
  CHECK(parse_duration("3 milli") == 3 * kMillisecond);
  CHECK(parse_duration("3 millis") == 3 * kMillisecond);
  CHECK(parse_duration("4 sec") == 4 * kSecond);
  CHECK(parse_duration("4 secs") == 4 * kSecond);
  CHECK(parse_duration("2 mins") == 2 * kMinute);
  CHECK(parse_duration("2 minute") == 2 * kMinute);
  CHECK(parse_duration("2 minutes") == 2 * kMinute);
  CHECK(parse_duration("2 m") == 2 * kMinute);  // Flink reads "m" as minutes
  CHECK(parse_duration("1 hour") == kHour);
  CHECK(parse_duration("3 hours") == 3 * kHour);
  CHECK(parse_duration("10 MIN") == 10 * kMinute);  // labels are case-insensitive
  CHECK(parse_duration("  30 s  ") == 30 * kSecond);
  CHECK(parse_duration("0") == 0);
}

TEST_CASE("a bare number is a duration in milliseconds, as Flink's Duration options read it") {
  CHECK(parse_duration("500") == 500 * kMillisecond);
  CHECK(parse_duration("1.5 s") == 1500 * kMillisecond);
}

TEST_CASE("negative, empty or unit-less garbage durations are rejected") {
  CHECK_FALSE(parse_duration("-1 s"));
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("ten s"));
  CHECK_FALSE(parse_duration("10 parsecs"));
  CHECK_FALSE(parse_duration("10 s 5"));
  CHECK_FALSE(parse_duration("99999999999999999999 d"));
}

TEST_CASE("sizes are read in Flink's MemorySize syntax, 1024-based") {
  CHECK(parse_size("32kb") == 32 * 1024);
  CHECK(parse_size("32 kb") == 32 * 1024);
  CHECK(parse_size("32 k") == 32 * 1024);
  CHECK(parse_size("1 mb") == 1024 * 1024);
  CHECK(parse_size("1 MiB") == 1024 * 1024);
  CHECK(parse_size("20 GiB") == 20LL * 1024 * 1024 * 1024);
  CHECK(parse_size("2 g") == 2LL * 1024 * 1024 * 1024);
  CHECK(parse_size("1 t") == 1024LL * 1024 * 1024 * 1024);
  CHECK(parse_size("1024") == 1024);
  CHECK(parse_size("100 b") == 100);
  CHECK(parse_size("100 bytes") == 100);
  CHECK(parse_size("1.5 kb") == 1536);
  CHECK_FALSE(parse_size("-1 kb"));
  CHECK_FALSE(parse_size("1 kbit"));
  CHECK_FALSE(parse_size(""));
}

TEST_CASE("rates are per second, in records or bytes") {
  CHECK(parse_rate("50000 rows/s") == Approx(50000.0));
  CHECK(parse_rate("1000 records/s") == Approx(1000.0));
  CHECK(parse_rate("2k records/s") == Approx(2000.0));
  CHECK(parse_rate("600 rows/min") == Approx(10.0));
  CHECK(parse_rate("20 MB/s") == Approx(20.0 * 1024 * 1024));
  CHECK(parse_rate("512 kb/s") == Approx(512.0 * 1024));
  CHECK(parse_rate("5000") == Approx(5000.0));
  CHECK(parse_rate("5000/s") == Approx(5000.0));
  CHECK_FALSE(parse_rate("-5 rows/s"));
  CHECK_FALSE(parse_rate("5 rows/fortnight"));
  CHECK_FALSE(parse_rate("5 apples/s"));
}

TEST_CASE("counts take k, M and G suffixes") {
  CHECK(parse_count("40M") == 40'000'000);
  CHECK(parse_count("8096") == 8096);
  CHECK(parse_count("2k") == 2000);
  CHECK(parse_count("1.5 M") == 1'500'000);
  CHECK(parse_count("3G") == 3'000'000'000);
  CHECK_FALSE(parse_count("-3"));
  CHECK_FALSE(parse_count("3 apples"));
}

TEST_CASE("ckptsim's own durations may have parts: '4 min 30 s' (issue 18 item 4)") {
  CHECK(parse_duration("4 min 30 s") == 4 * kMinute + 30 * kSecond);
  CHECK(parse_duration("1h 30min") == kHour + 30 * kMinute);
  CHECK(parse_duration("2 d 3 h 4 min 5 s 6 ms") ==
        2 * 24 * kHour + 3 * kHour + 4 * kMinute + 5 * kSecond + 6 * kMillisecond);
  CHECK_FALSE(parse_duration("4 min 30"));  // a part without its unit
  CHECK_FALSE(parse_duration("4 min 30 parsecs"));
  CHECK_FALSE(parse_duration("100000000 d 100000000 d"));  // too large, not wrapped
}

TEST_CASE("numbers may be written in scientific notation (issue 18 item 4)") {
  CHECK(parse_rate("1e9 records/s") == 1e9);
  CHECK(parse_rate("2.5E3 rows/s") == 2500.0);
  CHECK(parse_duration("1e3 ms") == kSecond);
  CHECK(parse_duration("1.5e1 s") == 15 * kSecond);
  CHECK(parse_size("1e3 kb") == 1000 * 1024);
  CHECK(parse_count("4e7") == 40'000'000);
  CHECK_FALSE(parse_duration("1e18 ms"));  // 1e24 ns: too large
  CHECK(parse_rate("5 events/s") == 5.0);  // a unit that starts with 'e' is still a unit
}
