// Compiler-style diagnostics: collecting them with their source lines, formatting them, and the
// "did you mean" search over known names.
#include <algorithm>
#include <cctype>

#include "sim/scenario/internal.hpp"

namespace ckptsim::scenario {

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.file;
  if (d.line > 0) out += ':' + std::to_string(d.line) + ':' + std::to_string(d.column);
  out += d.severity == Diagnostic::Severity::warning ? ": warning: "
         : d.severity == Diagnostic::Severity::note  ? ": note: "
                                                      : ": error: ";
  out += d.message + '\n';
  if (d.line > 0 && !d.source_line.empty()) {
    std::string gutter = std::to_string(d.line);
    if (gutter.size() < 5) gutter.insert(0, 5 - gutter.size(), ' ');
    // A very long line (generated or hostile input) is shown as a window around the caret.
    constexpr std::size_t kShown = 160;
    const auto column = static_cast<std::size_t>(std::max(d.column - 1, 0));
    std::size_t from = 0;
    std::string line = d.source_line;
    if (line.size() > kShown) {
      from = column > kShown / 2 ? std::min(column - kShown / 2, line.size() - kShown) : 0;
      line = (from > 0 ? "..." : "") + line.substr(from, kShown) +
             (from + kShown < line.size() ? "..." : "");
      if (from > 0) from -= 3;  // the "..." takes the place of three characters
    }
    out += gutter + " | " + line + '\n';
    out += "      | ";
    // Keep tabs so the caret lines up with the source line whatever the tab width.
    const std::size_t pad = column - std::min(column, from);
    for (std::size_t i = 0; i < pad; ++i)
      out += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
    out += '^';
    const auto room = line.size() > pad ? line.size() - pad : std::size_t{1};
    out.append(std::min(static_cast<std::size_t>(std::max(d.length - 1, 0)), room - 1), '~');
    out += '\n';
  }
  if (!d.hint.empty()) out += "hint: " + d.hint + '\n';
  return out;
}

std::string format_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += format_diagnostic(d);
  return out;
}

}  // namespace ckptsim::scenario

namespace ckptsim::scenario::detail {

const Entry* Node::find(std::string_view key) const {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

Entry* Node::find(std::string_view key) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

int Context::add_source(std::string name, std::string_view text) {
  Source source{std::move(name), {}};
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    source.lines.emplace_back(line);
    start = end + 1;
  }
  sources_.push_back(std::move(source));
  return static_cast<int>(sources_.size()) - 1;
}

int Context::line_length(int source, int line) const {
  if (source < 0 || static_cast<std::size_t>(source) >= sources_.size() || line < 1) return 0;
  const auto& lines = sources_[static_cast<std::size_t>(source)].lines;
  if (static_cast<std::size_t>(line) > lines.size()) return 0;
  return static_cast<int>(lines[static_cast<std::size_t>(line) - 1].size());
}

std::string Context::source_name(int source) const {
  if (source < 0 || static_cast<std::size_t>(source) >= sources_.size()) return {};
  return sources_[static_cast<std::size_t>(source)].name;
}

Diagnostic Context::located(const Loc& loc, std::string message, std::string hint) const {
  const Source& source = sources_[static_cast<std::size_t>(loc.source)];
  Diagnostic d;
  d.file = source.name;
  d.line = std::max(loc.line, 1);
  d.column = std::max(loc.column, 1);
  d.message = std::move(message);
  d.hint = std::move(hint);
  if (static_cast<std::size_t>(d.line) <= source.lines.size())
    d.source_line = source.lines[static_cast<std::size_t>(d.line) - 1];
  const int room = static_cast<int>(d.source_line.size()) - (d.column - 1);
  d.length = std::max(1, std::min(loc.length, room));
  return d;
}

bool Context::known_source(const Loc& loc) const {
  return loc.source >= 0 && static_cast<std::size_t>(loc.source) < sources_.size();
}

void Context::error(const Loc& loc, std::string message, std::string hint) {
  if (full()) {
    ++dropped_;
    return;
  }
  if (!known_source(loc)) {
    error_without_location("?", std::move(message), std::move(hint));
    return;
  }
  pending_.push_back({loc.source, located(loc, std::move(message), std::move(hint))});
}

void Context::warning(const Loc& loc, std::string message, std::string hint) {
  Diagnostic d;
  if (known_source(loc)) {
    d = located(loc, std::move(message), std::move(hint));
  } else {
    d.file = "?";
    d.message = std::move(message);
    d.hint = std::move(hint);
  }
  d.severity = Diagnostic::Severity::warning;
  warnings_.push_back({loc.source, std::move(d)});
}

void Context::note(const Loc& loc, std::string message) {
  Diagnostic d;
  if (known_source(loc)) {
    d = located(loc, std::move(message), "");
  } else {
    d.file = "?";
    d.message = std::move(message);
  }
  d.severity = Diagnostic::Severity::note;
  notes_.push_back({loc.source, std::move(d)});
}

void Context::error_without_location(std::string file, std::string message, std::string hint) {
  if (full()) {
    ++dropped_;
    return;
  }
  Diagnostic d;
  d.file = std::move(file);
  d.message = std::move(message);
  d.hint = std::move(hint);
  pending_.push_back({-1, std::move(d)});
}

std::vector<Diagnostic> Context::take_diagnostics() {
  std::vector<Diagnostic> out = take(pending_);
  if (dropped_ > 0) {
    Diagnostic more;
    more.file = sources_.empty() ? std::string("?") : sources_.front().name;
    more.message = "... and " + std::to_string(dropped_) + " more error" +
                   (dropped_ == 1 ? "" : "s") + " not shown";
    more.hint = "fix the ones above first; they often cause the rest";
    out.push_back(std::move(more));
  }
  return out;
}

std::vector<Diagnostic> Context::take(std::vector<Pending>& pending) {
  // Report in reading order (a compiler's order), whatever order the checks ran in.
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    if (a.source != b.source) return a.source < b.source;
    if (a.diagnostic.line != b.diagnostic.line) return a.diagnostic.line < b.diagnostic.line;
    return a.diagnostic.column < b.diagnostic.column;
  });
  std::vector<Diagnostic> out;
  out.reserve(pending.size());
  for (Pending& p : pending) out.push_back(std::move(p.diagnostic));
  pending.clear();
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

// edit_distance(a, b) when it is at most `bound`, else some value above `bound`. Stops as soon as
// no cell of a row is within the bound: long unknown keys must not make the hints slow (a 4 MiB
// file of 1,000-character Flink keys took 12 s; seen profiling the loader's fuzz target).
std::size_t edit_distance_within(std::string_view a, std::string_view b, std::size_t bound) {
  const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (gap > bound) return bound + 1;
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    std::size_t row_min = row[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      row_min = std::min(row_min, row[j]);
      diagonal = above;
    }
    if (row_min > bound) return bound + 1;  // later rows never go below this row's minimum
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  const std::string lower = to_lower(word);
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    // Only a candidate strictly closer than the best so far can replace it.
    const std::size_t distance =
        edit_distance_within(lower, to_lower(candidate), best_distance - 1);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

void unknown_key(Context& ctx, const Entry& entry, std::string_view where,
                 const std::vector<std::string>& allowed) {
  std::string hint = did_you_mean(entry.key, allowed);
  if (hint.empty()) hint = std::string(where) + " keys are: " + join(allowed, ", ");
  ctx.error(entry.key_loc, "unknown " + std::string(where) + " key '" + entry.key + "'", hint);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::optional<std::string> match = closest_match(word, candidates);
  return match ? "did you mean '" + *match + "'?" : std::string();
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

}  // namespace ckptsim::scenario::detail
