// `ckptsim test`: runs every scenario found under the given paths (in parallel, each with its
// own seed), checks its `expect:` section, prints PASS/FAIL per scenario and a total, and can
// write JUnit XML for CI. Exit code 1 when any scenario failed.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "analysis/expect.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/limits.hpp"
#include "sim/cli/parallel_runs.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> paths;
  std::string junit;
  int threads = 0;  // 0: as many as the machine has
  Limits limits;
};

enum class Verdict { pass, fail, error };

struct Outcome {
  std::string path;
  Verdict verdict = Verdict::pass;
  bool has_expectations = false;
  std::string summary;  // the first failed expectation, or what went wrong
  std::string details;  // every failed expectation, or the diagnostics
};

bool is_scenario_file(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml";
}

// Directories are searched recursively; the result is sorted per argument, so the order (and
// every output) does not depend on the file system.
std::vector<std::string> find_scenarios(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& path : paths) {
    std::error_code ec;
    std::vector<std::string> found;
    if (fs::is_directory(path, ec)) {
      for (auto it = fs::recursive_directory_iterator(path, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && is_scenario_file(it->path()))
          found.push_back(it->path().lexically_normal().generic_string());  // no "./"
      std::sort(found.begin(), found.end());
    } else {
      found.push_back(path);  // a file (or a missing one: loading it reports that)
    }
    for (std::string& f : found)
      if (seen.insert(f).second) out.push_back(std::move(f));
  }
  return out;
}

Outcome test_one(const std::string& path, const Limits& limits) {
  Outcome outcome;
  outcome.path = path;
  const scenario::LoadResult loaded = scenario::load_file(path, {}, limits.load);
  if (!loaded.ok()) {
    outcome.verdict = Verdict::error;
    const std::size_t n = loaded.diagnostics.size();
    outcome.summary = std::to_string(n) + (n == 1 ? " error" : " errors") + " in the scenario";
    outcome.details = scenario::format_diagnostics(loaded.diagnostics);
    return outcome;
  }
  outcome.has_expectations = !loaded.expectations.items.empty();
  if (const auto why = too_big(*loaded.scenario, limits)) {
    outcome.verdict = Verdict::error;
    outcome.summary = *why;
    outcome.details = *why + "\n";
    return outcome;
  }
  try {
    const run::RunResult result = run::run(*loaded.scenario);
    for (const analysis::ExpectationResult& r :
         analysis::check_expectations(loaded.expectations.items, result)) {
      if (r.passed) continue;
      if (outcome.verdict == Verdict::pass) outcome.summary = analysis::describe_result(r);
      outcome.verdict = Verdict::fail;
      outcome.details += analysis::describe_result(r) + "\n";
    }
  } catch (const std::exception& e) {
    outcome.verdict = Verdict::error;
    outcome.summary = std::string("internal error while running: ") + e.what();
    outcome.details = outcome.summary + "\n";
  }
  return outcome;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, line feed and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

// JUnit XML as Jenkins, GitLab and GitHub read it: one testcase per scenario, its class name
// the scenario's directory in dotted form. No times, so the file is byte-identical between runs.
std::string junit_xml(const std::vector<Outcome>& outcomes) {
  std::size_t failures = 0, errors = 0;
  for (const Outcome& o : outcomes) {
    failures += o.verdict == Verdict::fail;
    errors += o.verdict == Verdict::error;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = "tests=\"" + std::to_string(outcomes.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\"";
  out += "<testsuites name=\"ckptsim test\" " + counts + ">\n";
  out += "  <testsuite name=\"ckptsim\" " + counts + " skipped=\"0\">\n";
  for (const Outcome& o : outcomes) {
    const fs::path path(o.path);
    std::string classname = path.parent_path().generic_string();
    std::replace(classname.begin(), classname.end(), '/', '.');
    if (classname.empty()) classname = "scenarios";
    out += "    <testcase classname=\"" + xml_escape(classname) + "\" name=\"" +
           xml_escape(path.filename().generic_string()) + "\" file=\"" + xml_escape(o.path) + "\"";
    if (o.verdict == Verdict::pass) {
      out += "/>\n";
      continue;
    }
    const char* element = o.verdict == Verdict::fail ? "failure" : "error";
    out += ">\n      <" + std::string(element) + " message=\"" + xml_escape(o.summary) + "\">" +
           xml_escape(o.details) + "</" + element + ">\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

int run_tests(const Options& options) {
  const std::vector<std::string> files =
      find_scenarios(options.paths.empty() ? std::vector<std::string>{"scenarios"} : options.paths);
  if (files.empty()) {
    std::cerr << "ckptsim test: error: no scenario files (*.yaml) found\n";
    return 1;
  }
  std::vector<Outcome> outcomes(files.size());
  run_in_parallel(options.threads, files.size(),
                  [&](std::size_t i) { outcomes[i] = test_one(files[i], options.limits); });
  std::size_t passed = 0;
  bool errors = false;
  for (const Outcome& o : outcomes) {
    errors = errors || o.verdict == Verdict::error;
    if (o.verdict == Verdict::pass) {
      ++passed;
      std::cout << "PASS " << o.path << (o.has_expectations ? "" : " (no expectations)") << "\n";
      continue;
    }
    // "FAIL a.yaml:12:5: ...", or "FAIL a.yaml: base.yaml:12:5: ..." for an inherited expectation.
    const bool located = o.summary.rfind(o.path + ":", 0) == 0;
    std::cout << "FAIL " << (located ? "" : o.path + ": ") << o.summary << "\n";
    if (o.verdict == Verdict::error) std::cout << o.details;
  }
  const std::size_t failed = outcomes.size() - passed;
  std::cout << passed << " passed, " << failed << " failed\n";
  if (!options.junit.empty()) {
    std::ofstream out(options.junit, std::ios::binary);
    out << junit_xml(outcomes);
    if (!out.flush()) {
      std::cerr << "ckptsim test: error: cannot write " << options.junit << "\n";
      return 1;
    }
  }
  if (failed == 0) return kExitOk;
  return errors ? kExitScenarioErrors : kExitFailed;
}

}  // namespace

Command add_test_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "test",
      "Run every scenario under PATH (directories recursively, *.yaml) and check its expect: "
      "section; one PASS/FAIL line per scenario, then 'N passed, N failed'. Exit code 2 if a "
      "scenario has errors, else 3 if an expectation failed.");
  cmd->add_option("PATH", options->paths, "Scenario files or directories (default: scenarios)");
  cmd->add_option("--junit", options->junit, "Also write the results as JUnit XML to FILE");
  cmd->add_option("--threads", options->threads,
                  "Scenarios run in parallel (default: one per core)")
      ->check(CLI::PositiveNumber);
  add_limit_options(*cmd, options->limits);
  return Command{cmd, [options] { return run_tests(*options); }};
}

}  // namespace ckptsim::cli
