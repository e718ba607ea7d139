// Renders the HTML reports: inline CSS, SVG charts drawn here, <details> to expand, no script,
// and a Content-Security-Policy that forbids every fetch, so opening the file never touches the
// network. Numbers are formatted with fixed precision so the same input gives the same bytes.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report.hpp"

namespace ckptsim::analysis {
namespace {

using nlohmann::ordered_json;

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string clock(std::int64_t ms) {
  if (ms < 0) return "-";
  const std::int64_t s = ms / 1000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", s / 3600, (s / 60) % 60, s % 60, ms % 1000);
}

std::string short_clock(double ms) {
  const auto s = static_cast<std::int64_t>(ms / 1000);
  if (s < 3600) return fmt::format("{:02}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

std::string human_ms(std::int64_t ms) {
  if (ms < 1000) return fmt::format("{} ms", ms);
  if (ms < 60'000) return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000);
  const std::int64_t s = ms / 1000;
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s / 60) % 60);
}

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

// A "nice" step for about `target` ticks over `span`.
double nice_step(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

// A nice step for time axes in ms: 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1 h, ...
double time_step(double span_ms, int target) {
  for (double s : {1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0,
                   3600.0, 7200.0, 21600.0, 43200.0, 86400.0})
    if (span_ms / (s * 1000) <= target) return s * 1000;
  return nice_step(span_ms, target);
}

// A step for duration axes in ms that reads as a round duration (2 min, not 1 min 40 s).
double duration_step(double span_ms, int target) {
  if (span_ms / target < 1000) return nice_step(span_ms, target);
  return time_step(span_ms, target);
}

struct Plot {  // a chart area: time (or value) on x, rows or values on y
  double left = 64, right = 16, top = 10, bottom = 24;
  double width = 1100, height = 200;
  double x0 = 0, x1 = 1;  // domain
  double x(double v) const {
    const double span = x1 > x0 ? x1 - x0 : 1;
    return left + (v - x0) / span * (width - left - right);
  }
  double inner_width() const { return width - left - right; }
  double inner_bottom() const { return height - bottom; }
};

std::string svg_open(const Plot& p, const std::string& cls, const std::string& label) {
  return fmt::format(
      "<svg class=\"{}\" role=\"img\" aria-label=\"{}\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      cls, esc(label), num(p.width), num(p.height), num(p.width), num(p.height));
}

std::string time_axis(const Plot& p) {
  std::string out;
  const double step = time_step(p.x1 - p.x0, 10);
  out +=
      fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(p.left),
                  num(p.inner_bottom()), num(p.width - p.right), num(p.inner_bottom()));
  for (double t = std::ceil(p.x0 / step) * step; t <= p.x1 + 1e-9; t += step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/><text class=\"tick\" "
        "x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        num(p.x(t)), num(p.top), num(p.inner_bottom()), num(p.inner_bottom() + 14), short_clock(t));
  }
  return out;
}

const char* status_class(const std::string& status) {
  if (status == "COMPLETED") return "completed";
  if (status == "FAILED") return "failed";
  return "in-progress";
}

// Restarts and failovers: the spans in which the job was not RUNNING after it first ran.
struct Band {
  std::int64_t from = 0, to = 0;
  std::string state;
};
std::vector<Band> not_running_bands(const ReportRun& run) {
  std::vector<Band> bands;
  bool ran = false;
  std::optional<Band> open;
  for (const ReportStatusChange& c : run.status_changes) {
    if (c.to == "RUNNING") {
      if (open) {
        open->to = c.time_ms;
        bands.push_back(*open);
        open.reset();
      }
      ran = true;
    } else if (ran && c.from == "RUNNING") {
      open = Band{c.time_ms, run.end_ms, c.to};
    } else if (open && c.to != open->state) {
      open->state += " -> " + c.to;
    }
  }
  if (open) bands.push_back(*open);
  return bands;
}

std::string bands_svg(const Plot& p, const std::vector<Band>& bands) {
  std::string out;
  for (const Band& b : bands) {
    const double x = p.x(static_cast<double>(b.from));
    const double w = std::max(2.0, p.x(static_cast<double>(b.to)) - x);
    out += fmt::format(
        "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>job {} from {} "
        "to {}</title></rect>\n",
        num(x), num(p.top), num(w), num(p.inner_bottom() - p.top), esc(b.state), clock(b.from),
        clock(b.to));
  }
  return out;
}

std::int64_t checkpoint_end(const ReportRun& run, const ReportCheckpoint& c) {
  return c.end_ms >= 0 ? c.end_ms : run.end_ms;
}

// The subtask that acknowledged last (or, none acknowledged, nothing): the checkpoint's
// critical path.
struct Critical {
  int vertex = -1;
  const ReportSubtask* subtask = nullptr;
};
Critical critical_subtask(const ReportCheckpoint& c) {
  Critical best;
  for (std::size_t v = 0; v < c.subtasks.size(); ++v)
    for (const ReportSubtask& s : c.subtasks[v])
      if (s.acknowledged && (!best.subtask || s.ack_ms > best.subtask->ack_ms)) {
        best.vertex = static_cast<int>(v);
        best.subtask = &s;
      }
  return best;
}

// The phases of one subtask's checkpoint as Flink's statistics time them, from the trigger:
// start delay (trigger to first barrier), alignment, sync, async; the rest until its ack is the
// acknowledgement's way to the coordinator and what the stats do not split.
struct Phase {
  const char* cls;
  const char* name;
  std::int64_t from, length;
};
std::vector<Phase> phases_of(const ReportSubtask& s, std::int64_t trigger_ms) {
  std::vector<Phase> out;
  std::int64_t t = 0;
  const auto add = [&](const char* cls, const char* name, std::int64_t length) {
    if (length > 0) out.push_back({cls, name, t, length});
    t += std::max<std::int64_t>(0, length);
  };
  add("ph-delay", "start delay", s.start_delay_ms);
  add("ph-align", "alignment", s.alignment_ms);
  add("ph-sync", "sync", s.sync_ms);
  add("ph-async", "async", s.async_ms);
  if (s.ack_ms >= 0 && s.ack_ms - trigger_ms > t)
    add("ph-rest", "to the ack", s.ack_ms - trigger_ms - t);
  return out;
}

std::string timeline_svg(const ReportRun& run) {
  Plot p;
  p.x0 = 0;
  p.x1 = static_cast<double>(std::max<std::int64_t>(run.end_ms, 1));
  const std::size_t n = run.checkpoints.size();
  const double row =
      std::clamp(420.0 / static_cast<double>(std::max<std::size_t>(n, 1)), 3.0, 18.0);
  p.height = p.top + row * static_cast<double>(n) + p.bottom + 4;
  std::string out = svg_open(p, "chart timeline", "checkpoint timeline");
  out += bands_svg(p, not_running_bands(run));
  out += time_axis(p);
  for (std::size_t i = 0; i < n; ++i) {
    const ReportCheckpoint& c = run.checkpoints[i];
    const double y = p.top + row * static_cast<double>(i) + 1;
    const double h = std::max(1.5, row - 2);
    const double x = p.x(static_cast<double>(c.trigger_ms));
    const double w = std::max(2.0, p.x(static_cast<double>(checkpoint_end(run, c))) - x);
    out += fmt::format(
        "<g><rect class=\"ckpt-bar {}\" data-checkpoint=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\"/><title>#{} {} {} at {}, {}{}</title>",
        status_class(c.status), c.id, num(x), num(y), num(w), num(h), c.id, esc(c.type),
        esc(c.status), clock(c.trigger_ms),
        c.end_ms >= 0 ? human_ms(c.end_ms - c.trigger_ms) : "still in progress",
        c.failure_message.empty() ? "" : ": " + esc(c.failure_message));
    // The critical subtask's phases inside the bar, where there is room.
    const Critical crit = critical_subtask(c);
    if (crit.subtask && h >= 6) {
      for (const Phase& ph : phases_of(*crit.subtask, c.trigger_ms)) {
        const double px = p.x(static_cast<double>(c.trigger_ms + ph.from));
        const double pw = p.x(static_cast<double>(c.trigger_ms + ph.from + ph.length)) - px;
        if (pw < 0.5) continue;
        out +=
            fmt::format("<rect class=\"phase {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                        ph.cls, num(px), num(y + h * 0.25), num(pw), num(h * 0.5));
      }
    }
    out += "</g>\n";
    if (row >= 10)
      out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">#{}</text>\n",
                         num(p.left - 4), num(y + h - 2), c.id);
  }
  out += "</svg>\n";
  return out;
}

std::string durations_svg(const ReportRun& run, std::int64_t timeout_ms) {
  Plot p;
  p.height = 220;
  p.x0 = 0;
  p.x1 = static_cast<double>(std::max<std::int64_t>(run.end_ms, 1));
  double max_ms = 1;
  for (const ReportCheckpoint& c : run.checkpoints)
    if (c.end_ms >= 0) max_ms = std::max(max_ms, static_cast<double>(c.end_ms - c.trigger_ms));
  const double step = duration_step(max_ms, 4);
  const double top = std::ceil(max_ms * 1.05 / step) * step;
  const auto y = [&](double v) { return p.inner_bottom() - v / top * (p.inner_bottom() - p.top); };
  std::string out = svg_open(p, "chart durations", "checkpoint durations over time");
  out += bands_svg(p, not_running_bands(run));
  out += time_axis(p);
  for (double v = 0; v <= top + 1e-9; v += step)
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text class=\"tick\" "
        "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        num(p.left), num(y(v)), num(p.width - p.right), num(p.left - 4), num(y(v) + 4),
        human_ms(static_cast<std::int64_t>(v)));
  if (timeout_ms > 0 && static_cast<double>(timeout_ms) <= top)
    out += fmt::format(
        "<line class=\"timeout\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"><title>checkpoint "
        "timeout {3}</title></line>\n",
        num(p.left), num(y(static_cast<double>(timeout_ms))), num(p.width - p.right),
        human_ms(timeout_ms));
  for (const ReportCheckpoint& c : run.checkpoints) {
    if (c.end_ms < 0) continue;
    out += fmt::format(
        "<circle class=\"dot {}\" cx=\"{}\" cy=\"{}\" r=\"3.5\"><title>#{} {} "
        "{}</title></circle>\n",
        status_class(c.status), num(p.x(static_cast<double>(c.trigger_ms))),
        num(y(static_cast<double>(c.end_ms - c.trigger_ms))), c.id, esc(c.status),
        human_ms(c.end_ms - c.trigger_ms));
  }
  out += "</svg>\n";
  return out;
}

// Heatmap cells: the Flink web UI's colours, idle blue to busy red, back-pressure darkening.
std::string cell_colour(double busy, double back_pressured) {
  const double b = std::clamp(busy / 1000, 0.0, 1.0);
  const double bp = std::clamp(back_pressured / 1000, 0.0, 1.0);
  const auto mix = [](double a, double c, double t) { return a + (c - a) * t; };
  double r = mix(0xcf, 0xd7, b), g = mix(0xe2, 0x30, b), bl = mix(0xf3, 0x1f, b);
  r = mix(r, 0x22, bp);
  g = mix(g, 0x22, bp);
  bl = mix(bl, 0x22, bp);
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(r + 0.5), static_cast<int>(g + 0.5),
                     static_cast<int>(bl + 0.5));
}

// Sample periods grouped into at most `max_columns` columns of equal length.
struct Grid {
  std::vector<std::int64_t> period_ends;  // distinct sample ends, ascending
  std::size_t columns = 0;
  std::size_t per_column = 1;
  std::size_t column_of(std::size_t period) const { return period / per_column; }
};
Grid grid_of(const ReportRun& run, std::size_t max_columns) {
  Grid g;
  for (const ReportSample& s : run.samples)
    if (g.period_ends.empty() || g.period_ends.back() != s.end_ms)
      g.period_ends.push_back(s.end_ms);
  g.per_column = std::max<std::size_t>(1, (g.period_ends.size() + max_columns - 1) / max_columns);
  g.columns = (g.period_ends.size() + g.per_column - 1) / g.per_column;
  return g;
}

struct Cell {
  double busy = 0, back_pressured = 0;
  int n = 0;
};

// rows x columns of means of the samples whose row `row_of` gives (-1: skip).
template <typename RowOf>
std::vector<std::vector<Cell>> cells_of(const ReportRun& run, const Grid& g, std::size_t rows,
                                        RowOf row_of) {
  std::vector<std::vector<Cell>> cells(rows, std::vector<Cell>(g.columns));
  std::size_t period = 0;
  for (const ReportSample& s : run.samples) {
    while (period < g.period_ends.size() && g.period_ends[period] < s.end_ms) ++period;
    const int row = row_of(s);
    if (row < 0 || static_cast<std::size_t>(row) >= rows) continue;
    Cell& c = cells[static_cast<std::size_t>(row)][g.column_of(period)];
    c.busy += s.busy;
    c.back_pressured += s.back_pressured;
    c.n += 1;
  }
  return cells;
}

std::string heatmap_svg(const ReportRun& run, const Grid& g,
                        const std::vector<std::vector<Cell>>& cells,
                        const std::vector<std::string>& labels, const std::string& label) {
  Plot p;
  p.left = 220;
  p.x0 = 0;
  p.x1 = static_cast<double>(std::max<std::int64_t>(run.end_ms, 1));
  const double row = cells.size() > 64 ? 6 : 16;
  p.height = p.top + row * static_cast<double>(cells.size()) + p.bottom + 4;
  std::string out = svg_open(p, "chart heatmap", label);
  std::int64_t previous_end = 0;
  std::vector<std::int64_t> column_start(g.columns), column_end(g.columns);
  for (std::size_t i = 0; i < g.period_ends.size(); ++i) {
    const std::size_t c = g.column_of(i);
    if (i % g.per_column == 0) column_start[c] = previous_end;
    column_end[c] = g.period_ends[i];
    previous_end = g.period_ends[i];
  }
  for (std::size_t r = 0; r < cells.size(); ++r) {
    const double y = p.top + row * static_cast<double>(r);
    for (std::size_t c = 0; c < g.columns; ++c) {
      const Cell& cell = cells[r][c];
      if (cell.n == 0) continue;
      const double busy = cell.busy / cell.n, bp = cell.back_pressured / cell.n;
      const double x = p.x(static_cast<double>(column_start[c]));
      const double w = p.x(static_cast<double>(column_end[c])) - x;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}-{} busy {}, "
          "back-pressured {} ms/s</title></rect>\n",
          num(x), num(y), num(w + 0.3), num(row - 0.5), cell_colour(busy, bp),
          short_clock(static_cast<double>(column_start[c])),
          short_clock(static_cast<double>(column_end[c])), num(busy), num(bp));
    }
    if (row >= 10)
      out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                         num(p.left - 4), num(y + row - 4),
                         esc(labels[r].size() > 34 ? labels[r].substr(0, 33) + "…" : labels[r]));
  }
  out += time_axis(p);
  out += "</svg>\n";
  return out;
}

// Per subtask rows shown when a vertex is expanded, at most this many (the most back-pressured).
constexpr std::size_t kMaxExpandedSubtasks = 64;

std::string heatmap_section(const ReportRun& run) {
  if (run.samples.empty()) return "<p class=\"note\">No time series in this directory.</p>\n";
  const Grid g = grid_of(run, 240);
  std::vector<std::string> labels;
  for (const ReportVertex& v : run.vertices)
    labels.push_back(fmt::format("{} ({})", v.name, v.parallelism));
  // One row per vertex: each cell the mean over its subtasks and periods. A vertex's worst
  // subtask shows when it is expanded.
  std::string out = heatmap_svg(
      run, g, cells_of(run, g, run.vertices.size(), [](const ReportSample& s) { return s.vertex; }),
      labels, "busy and back-pressured time per vertex");
  for (std::size_t v = 0; v < run.vertices.size(); ++v) {
    const ReportVertex& vertex = run.vertices[v];
    std::vector<double> bp(static_cast<std::size_t>(vertex.parallelism), 0);
    for (const ReportSample& s : run.samples)
      if (static_cast<std::size_t>(s.vertex) == v)
        bp[static_cast<std::size_t>(s.subtask)] += s.back_pressured;
    std::vector<int> order(bp.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return bp[static_cast<std::size_t>(a)] > bp[static_cast<std::size_t>(b)];
    });
    if (order.size() > kMaxExpandedSubtasks) order.resize(kMaxExpandedSubtasks);
    std::sort(order.begin(), order.end());
    std::vector<int> row_of_subtask(bp.size(), -1);
    std::vector<std::string> sub_labels;
    for (std::size_t i = 0; i < order.size(); ++i) {
      row_of_subtask[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
      sub_labels.push_back(
          fmt::format("{} ({}/{})", vertex.name, order[i] + 1, vertex.parallelism));
    }
    const auto row_of = [&](const ReportSample& s) {
      return static_cast<std::size_t>(s.vertex) == v
                 ? row_of_subtask[static_cast<std::size_t>(s.subtask)]
                 : -1;
    };
    out +=
        fmt::format("<details class=\"expand\"><summary>{}: {} subtask{}{}</summary>\n",
                    esc(vertex.name), vertex.parallelism, vertex.parallelism == 1 ? "" : "s",
                    vertex.parallelism > static_cast<int>(kMaxExpandedSubtasks)
                        ? fmt::format(" (the {} most back-pressured shown)", kMaxExpandedSubtasks)
                        : "");
    out += heatmap_svg(run, g, cells_of(run, g, order.size(), row_of), sub_labels,
                       "busy and back-pressured time per subtask of " + vertex.name);
    out += "</details>\n";
  }
  return out;
}

const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string queues_svg(const ReportRun& run) {
  if (run.samples.empty()) return "";
  const Grid g = grid_of(run, 600);
  // Per vertex and column: buffers queued in its input channels and in its subpartitions,
  // summed over the subtasks, the mean over the column's periods.
  const std::size_t nv = run.vertices.size();
  std::vector<std::vector<double>> in(nv, std::vector<double>(g.columns)),
      out_q(nv, std::vector<double>(g.columns));
  std::vector<std::vector<std::int64_t>> end(nv, std::vector<std::int64_t>(g.columns));
  std::size_t period = 0;
  for (const ReportSample& s : run.samples) {
    while (period < g.period_ends.size() && g.period_ends[period] < s.end_ms) ++period;
    const std::size_t c = g.column_of(period);
    const auto v = static_cast<std::size_t>(s.vertex);
    in[v][c] += static_cast<double>(s.input_buffers) / static_cast<double>(g.per_column);
    out_q[v][c] += static_cast<double>(s.output_buffers) / static_cast<double>(g.per_column);
    end[v][c] = s.end_ms;
  }
  double max_v = 1;
  for (std::size_t v = 0; v < nv; ++v)
    for (std::size_t c = 0; c < g.columns; ++c) max_v = std::max({max_v, in[v][c], out_q[v][c]});
  Plot p;
  p.height = 220;
  p.x0 = 0;
  p.x1 = static_cast<double>(std::max<std::int64_t>(run.end_ms, 1));
  const double step = nice_step(max_v, 4);
  const double top = std::ceil(max_v * 1.05 / step) * step;
  const auto y = [&](double v) { return p.inner_bottom() - v / top * (p.inner_bottom() - p.top); };
  std::string svg = svg_open(p, "chart queues", "queued buffers per vertex");
  svg += bands_svg(p, not_running_bands(run));
  svg += time_axis(p);
  for (double v = 0; v <= top + 1e-9; v += step)
    svg += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text class=\"tick\" "
        "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        num(p.left), num(y(v)), num(p.width - p.right), num(p.left - 4), num(y(v) + 4),
        fmt::format("{:.0f}", v));
  std::string legend = "<p class=\"legend\">";
  for (std::size_t v = 0; v < nv; ++v) {
    const char* colour = kPalette[v % std::size(kPalette)];
    for (int which = 0; which < 2; ++which) {
      const auto& series = which == 0 ? in[v] : out_q[v];
      std::string points;
      for (std::size_t c = 0; c < g.columns; ++c)
        if (end[v][c] > 0)
          points +=
              fmt::format("{},{} ", num(p.x(static_cast<double>(end[v][c]))), num(y(series[c])));
      svg += fmt::format(
          "<polyline class=\"series{}\" stroke=\"{}\" points=\"{}\"><title>{}: "
          "{}</title></polyline>\n",
          which == 0 ? "" : " dashed", colour, points, esc(run.vertices[v].name),
          which == 0 ? "input buffers" : "output buffers");
    }
    legend += fmt::format("<span><i style=\"background:{}\"></i>{}</span> ", colour,
                          esc(run.vertices[v].name));
  }
  svg += "</svg>\n";
  return svg + legend +
         " (solid: queued in input channels, dashed: in subpartitions; summed over subtasks)</p>\n";
}

// Why a completed checkpoint was slow: its critical subtask's largest phase.
std::string slow_explanation(const ReportRun& run, const ReportCheckpoint& c) {
  const Critical crit = critical_subtask(c);
  if (!crit.subtask) return {};
  const ReportVertex& v = run.vertices[static_cast<std::size_t>(crit.vertex)];
  const ReportSubtask& s = *crit.subtask;
  const std::vector<Phase> phases = phases_of(s, c.trigger_ms);
  const Phase* longest = nullptr;
  for (const Phase& ph : phases)
    if (!longest || ph.length > longest->length) longest = &ph;
  std::string text = fmt::format(
      "{} ({}/{}) acknowledged last, {} after the trigger: start delay {} (until its first "
      "barrier), alignment {}, sync {}, async {}",
      v.name, s.index + 1, v.parallelism, human_ms(s.ack_ms - c.trigger_ms),
      human_ms(s.start_delay_ms), human_ms(s.alignment_ms), human_ms(s.sync_ms),
      human_ms(s.async_ms));
  if (longest) text += fmt::format("; most of it was {}", longest->name);
  if (longest && std::string_view(longest->name) == "start delay")
    text += " (the barrier queued behind data or waited for the task thread)";
  return text;
}

// Per-subtask phase rows in the expanded checkpoints, in all; beyond it, only the slowest
// subtasks of each vertex.
constexpr std::size_t kMaxPhaseRows = 20000;
constexpr std::size_t kMaxPhaseRowsPerVertex = 100;
// Up to this many subtasks in all, a checkpoint shows each of them without expanding.
constexpr std::size_t kAllSubtasksShown = 16;

std::string phases_svg(const ReportCheckpoint& c, const std::vector<std::string>& labels,
                       const std::vector<const ReportSubtask*>& rows, std::int64_t span_ms) {
  Plot p;
  p.left = 260;
  p.height = p.top + 12.0 * static_cast<double>(rows.size()) + p.bottom;
  p.x0 = 0;
  p.x1 = static_cast<double>(std::max<std::int64_t>(span_ms, 1));
  std::string out = svg_open(p, "chart phases", fmt::format("phases of checkpoint {}", c.id));
  const double step = duration_step(p.x1, 8);
  out +=
      fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(p.left),
                  num(p.inner_bottom()), num(p.width - p.right), num(p.inner_bottom()));
  for (double t = 0; t <= p.x1 + 1e-9; t += step)
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">+{}</text>\n",
                       num(p.x(t)), num(p.inner_bottom() + 14),
                       human_ms(static_cast<std::int64_t>(t)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = p.top + 12.0 * static_cast<double>(i);
    out +=
        fmt::format("<text class=\"label small\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                    num(p.left - 4), num(y + 9), esc(labels[i]));
    if (!rows[i]->acknowledged) {
      out += fmt::format(
          "<rect class=\"phase ph-pending\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"9\"><title>not "
          "acknowledged</title></rect>\n",
          num(p.left), num(y), num(p.inner_width()));
      continue;
    }
    for (const Phase& ph : phases_of(*rows[i], c.trigger_ms)) {
      const double x = p.x(static_cast<double>(ph.from));
      out += fmt::format(
          "<rect class=\"phase {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"9\"><title>{} "
          "{}</title></rect>",
          ph.cls, num(x), num(y),
          num(std::max(0.5, p.x(static_cast<double>(ph.from + ph.length)) - x)), ph.name,
          human_ms(ph.length));
    }
    out += "\n";
  }
  out += "</svg>\n";
  return out;
}

std::string checkpoint_list(const ReportRun& run) {
  std::vector<std::int64_t> completed;
  for (const ReportCheckpoint& c : run.checkpoints)
    if (c.status == "COMPLETED") completed.push_back(c.end_ms - c.trigger_ms);
  std::sort(completed.begin(), completed.end());
  const std::int64_t median = completed.empty() ? 0 : completed[completed.size() / 2];
  // Which checkpoints get per-subtask rows: failed ones first, then the slowest.
  std::vector<std::size_t> order(run.checkpoints.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ReportCheckpoint &x = run.checkpoints[a], &y = run.checkpoints[b];
    if ((x.status == "COMPLETED") != (y.status == "COMPLETED")) return y.status == "COMPLETED";
    return checkpoint_end(run, x) - x.trigger_ms > checkpoint_end(run, y) - y.trigger_ms;
  });
  std::set<std::size_t> expanded;
  std::size_t budget = kMaxPhaseRows;
  for (std::size_t i : order) {
    std::size_t rows = 0;
    for (const auto& v : run.checkpoints[i].subtasks)
      rows += std::min(v.size(), kMaxPhaseRowsPerVertex);
    if (rows > budget) break;
    budget -= rows;
    expanded.insert(i);
  }
  std::string out = "<div class=\"checkpoints\">\n";
  bool slowest_seen = false;
  for (std::size_t i = 0; i < run.checkpoints.size(); ++i) {
    const ReportCheckpoint& c = run.checkpoints[i];
    const std::int64_t duration = checkpoint_end(run, c) - c.trigger_ms;
    std::vector<std::string> why = c.explanations;
    // Completed ones name their critical path; the slow ones (twice the median or more) and
    // the slowest are opened, as the failed ones with a diagnosis are.
    const bool slow = c.status == "COMPLETED" && completed.size() >= 2 && duration >= 2 * median &&
                      duration > median + 100;
    // The first of the slowest only, when several last as long.
    const bool slowest = c.status == "COMPLETED" && duration == completed.back() && !slowest_seen;
    slowest_seen = slowest_seen || slowest;
    bool open = !why.empty();
    if (c.status == "COMPLETED") {
      // The critical path first, then what held it at half the timeout (summary.json
      // slow_checkpoints), if it was still pending then.
      const std::string s = slow_explanation(run, c);
      if (!s.empty()) why.insert(why.begin(), (slow ? "Slow: " : slowest ? "Slowest: " : "") + s);
      open = open || slow || slowest;
    }
    out += fmt::format(
        "<details class=\"checkpoint {}\" id=\"checkpoint-{}\"{}><summary><b>#{}</b> {} <span "
        "class=\"status\">{}</span> triggered {} &middot; {} &middot; {}/{} "
        "acknowledged{}</summary>\n",
        status_class(c.status), c.id, open ? " open" : "", c.id, esc(c.type), esc(c.status),
        clock(c.trigger_ms), c.end_ms >= 0 ? human_ms(duration) : "in progress at the end",
        c.num_acknowledged, c.num_subtasks,
        c.failure_message.empty() ? "" : " &middot; " + esc(c.failure_message));
    if (!why.empty()) {
      out += "<ul class=\"why\">";
      for (const std::string& w : why) out += "<li>" + esc(w) + "</li>";
      out += "</ul>\n";
    }
    // A small job shows every subtask's phases. A larger one shows the slowest subtask of each
    // vertex, and its subtasks (the slowest of each vertex up to a bound) when expanded.
    std::size_t all_total = 0;
    for (const auto& v : c.subtasks) all_total += v.size();
    const auto rows_of = [&](std::size_t per_vertex, bool name_slowest) {
      std::pair<std::vector<std::string>, std::vector<const ReportSubtask*>> out_rows;
      for (std::size_t v = 0; v < c.subtasks.size() && v < run.vertices.size(); ++v) {
        std::vector<const ReportSubtask*> subs;
        for (const ReportSubtask& st : c.subtasks[v]) subs.push_back(&st);
        std::stable_sort(subs.begin(), subs.end(),
                         [](const ReportSubtask* x, const ReportSubtask* y) {
                           if (x->acknowledged != y->acknowledged) return !x->acknowledged;
                           return x->ack_ms > y->ack_ms;
                         });
        if (subs.size() > per_vertex) subs.resize(per_vertex);
        std::sort(subs.begin(), subs.end(), [](const ReportSubtask* x, const ReportSubtask* y) {
          return x->index < y->index;
        });
        for (const ReportSubtask* st : subs) {
          out_rows.first.push_back(
              fmt::format("{} ({}/{}){}", run.vertices[v].name.substr(0, 36), st->index + 1,
                          run.vertices[v].parallelism,
                          name_slowest && c.subtasks[v].size() > 1 ? ", the slowest" : ""));
          out_rows.second.push_back(st);
        }
      }
      return out_rows;
    };
    if (all_total > 0 && all_total <= kAllSubtasksShown) {
      const auto [labels, rows] = rows_of(kAllSubtasksShown, false);
      out += phases_svg(c, labels, rows, duration);
    } else if (all_total > 0) {
      const auto [labels, rows] = rows_of(1, true);
      out += phases_svg(c, labels, rows, duration);
      if (expanded.count(i)) {
        const auto [sub_labels, sub_rows] = rows_of(kMaxPhaseRowsPerVertex, false);
        out += fmt::format("<details class=\"expand-subtasks\"><summary>{} subtasks{}</summary>\n",
                           sub_rows.size() < all_total
                               ? fmt::format("{} of the {}", sub_rows.size(), all_total)
                               : fmt::format("all {}", all_total),
                           sub_rows.size() < all_total ? " (the slowest of each vertex)" : "");
        out += phases_svg(c, sub_labels, sub_rows, duration) + "</details>\n";
      } else {
        out +=
            "<p class=\"note\">Per-subtask rows are kept for the failed and the slowest "
            "checkpoints (report size).</p>\n";
      }
    }
    out += "</details>\n";
  }
  out += "</div>\n";
  return out;
}

std::string kv_table(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "<table class=\"kv\">";
  for (const auto& [k, v] : rows) out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>";
  return out + "</table>\n";
}

std::string json_scalar(const ordered_json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "-";
  return j.dump();
}

std::string summary_section(const ReportRun& run) {
  const ordered_json& s = run.summary;
  std::vector<std::pair<std::string, std::string>> rows;
  const auto add = [&](const std::string& label, const char* key) {
    if (s.contains(key)) rows.emplace_back(label, json_scalar(s[key]));
  };
  add("scenario", "scenario");
  rows.emplace_back("job",
                    run.job_name.empty() ? run.job_id : run.job_name + " (" + run.job_id + ")");
  add("Flink version", "flink_version");
  add("seed", "seed");
  rows.emplace_back("simulated time", human_ms(run.end_ms));
  add("final status", "final_status");
  if (s["checkpoints"].is_object()) {
    const ordered_json& c = s["checkpoints"];
    rows.emplace_back("checkpoints",
                      fmt::format("{} triggered, {} completed, {} failed, {} in progress",
                                  json_scalar(c.value("total", ordered_json(0))),
                                  json_scalar(c.value("completed", ordered_json(0))),
                                  json_scalar(c.value("failed", ordered_json(0))),
                                  json_scalar(c.value("in_progress", ordered_json(0)))));
    if (c.contains("by_failure_reason") && c["by_failure_reason"].is_object())
      for (const auto& [reason, count] : c["by_failure_reason"].items())
        rows.emplace_back("  failed: " + reason, json_scalar(count));
  }
  add("failovers", "failovers");
  add("restarts", "restarts");
  add("restores", "restores");
  add("replayed records", "replayed_records");
  add("lost records", "lost_records");
  if (s.contains("end_to_end_latency_ms") && s["end_to_end_latency_ms"].is_object()) {
    const ordered_json& l = s["end_to_end_latency_ms"];
    rows.emplace_back("end-to-end latency",
                      fmt::format("p50 {} ms, p99 {} ms over {} records",
                                  json_scalar(l.value("p50", ordered_json(0))),
                                  json_scalar(l.value("p99", ordered_json(0))),
                                  json_scalar(l.value("records", ordered_json(0)))));
  }
  add("simulation events", "events");
  std::string out = kv_table(rows);
  if (s.contains("task_failures") && s["task_failures"].is_array() && !s["task_failures"].empty()) {
    out += "<h3>Task failures</h3><ul>";
    for (const ordered_json& f : s["task_failures"])
      out += "<li>" + clock(f.value("time_ms", std::int64_t{0})) + " " +
             esc(f.value("vertex", std::string())) + " (" +
             std::to_string(f.value("subtask", 0) + 1) +
             "): " + esc(f.value("exception", std::string())) + "</li>";
    out += "</ul>\n";
  }
  if (s.contains("connector_events") && s["connector_events"].is_array() &&
      !s["connector_events"].empty()) {
    out += "<details><summary>Connector events (" + std::to_string(s["connector_events"].size()) +
           ")</summary><ul>";
    for (const ordered_json& e : s["connector_events"])
      out += "<li>" + clock(e.value("time_ms", std::int64_t{0})) + " " +
             esc(e.value("event", std::string())) + "</li>";
    out += "</ul></details>\n";
  }
  return out;
}

std::string config_section(const ReportRun& run) {
  if (!run.config.is_object())
    return "<p class=\"note\">No checkpoints/config.json in this directory.</p>\n";
  const std::vector<ConfigDifference> diffs = config_differences(run.config);
  std::string out;
  if (diffs.empty()) {
    out += "<p>The checkpoint configuration is Flink's default.</p>\n";
  } else {
    out += "<table class=\"config\"><tr><th>key</th><th>value</th><th>Flink's default</th></tr>";
    for (const ConfigDifference& d : diffs)
      out += "<tr><td><code>" + esc(d.key) + "</code></td><td>" + esc(d.value) + "</td><td>" +
             esc(d.flink_default) + "</td></tr>";
    out += "</table>\n";
  }
  out +=
      "<p class=\"note\">From the checkpoint configuration the REST API shows; other options "
      "(restart strategy, network, connectors) are in the scenario file.</p>\n";
  return out;
}

const char* kStyle = R"css(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1d2b3a;color:#fff;padding:12px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c8d3de}
main{padding:8px 24px 40px;max-width:1160px}
section{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px 16px;margin:14px 0}
h2{font-size:16px;margin:6px 0 8px}h3{font-size:14px}
svg{display:block;max-width:100%;height:auto}
.axis{stroke:#888}.grid{stroke:#eee}.tick{font-size:10px;fill:#666}.label{font-size:11px;fill:#333}
.label.small{font-size:9px}
.band{fill:#f4c7c3;opacity:.6}
.ckpt-bar.completed{fill:#7cc47f}.ckpt-bar.failed{fill:#e06666}.ckpt-bar.in-progress{fill:#f1c232}
.dot.completed{fill:#2e8b57}.dot.failed{fill:#cc0000}.dot.in-progress{fill:#e69138}
.timeout{stroke:#cc0000;stroke-dasharray:4 3}
.phase.ph-delay{fill:#9fc5e8}.phase.ph-align{fill:#8e7cc3}.phase.ph-sync{fill:#e69138}
.phase.ph-async{fill:#45818e}.phase.ph-rest{fill:#cccccc}.phase.ph-pending{fill:#f4cccc}
.series{fill:none;stroke-width:1.5}.series.dashed{stroke-dasharray:5 3}
.legend span{margin-right:12px;white-space:nowrap}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
.checkpoints{max-height:720px;overflow:auto}
details.checkpoint{border-top:1px solid #eee;padding:3px 0}
details.checkpoint.failed .status{color:#cc0000;font-weight:600}
details.checkpoint.completed .status{color:#2e8b57}
details.checkpoint.in-progress .status{color:#b45f06}
.why{margin:4px 0 6px 18px;color:#5b0f00}
.note{color:#777;font-size:12px}
table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
table.kv th{font-weight:500;color:#555}
table.config td,table.config th,table.cmp td,table.cmp th{border-bottom:1px solid #eee}
table.cmp td{text-align:right}table.cmp tr.best{background:#e7f3e7}
.ci-whisker{stroke-width:1.5}
.table-wrap{overflow-x:auto}
.key-legend{font-size:12px}
.small-multiples{display:flex;flex-wrap:wrap;gap:8px}.small-multiples svg{display:inline-block}
)css";

std::string page(const std::string& title, const std::string& subtitle, const std::string& body) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      // Nothing may be fetched: the report is one file and works offline.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      esc(title) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<header><h1>" +
      esc(title) + "</h1><p>" + esc(subtitle) + "</p></header>\n<main>\n" + body +
      "</main>\n</body></html>\n";
  return out;
}

}  // namespace

std::string run_report_html(const ReportRun& run) {
  std::string body;
  if (!run.notes.empty()) {
    body += "<section class=\"notes\"><h2>Not in this directory</h2><ul>";
    for (const std::string& n : run.notes) body += "<li>" + esc(n) + "</li>";
    body += "</ul></section>\n";
  }
  body += "<section id=\"summary\"><h2>Summary</h2>\n" + summary_section(run) + "</section>\n";
  body += "<section id=\"timeline\"><h2>Checkpoint timeline</h2>\n";
  body +=
      "<p class=\"legend\"><span><i style=\"background:#7cc47f\"></i>completed</span><span><i "
      "style=\"background:#e06666\"></i>failed</span><span><i style=\"background:#f1c232\"></i>in "
      "progress</span><span><i style=\"background:#f4c7c3\"></i>job not running (failover, "
      "restart)</span> &middot; inside a bar, the last subtask to acknowledge: <span><i "
      "style=\"background:#9fc5e8\"></i>start delay</span><span><i "
      "style=\"background:#8e7cc3\"></i>alignment</span><span><i "
      "style=\"background:#e69138\"></i>sync</span><span><i "
      "style=\"background:#45818e\"></i>async</span><span><i "
      "style=\"background:#cccccc\"></i>until the ack</span></p>\n";
  body += timeline_svg(run) + "</section>\n";
  const std::int64_t timeout =
      run.config.is_object() ? run.config.value("timeout", std::int64_t{0}) : 0;
  body += "<section id=\"durations\"><h2>Checkpoint durations over time</h2>\n" +
          durations_svg(run, timeout) + "</section>\n";
  body += "<section id=\"checkpoints\"><h2>Checkpoints and why they waited</h2>\n" +
          checkpoint_list(run) + "</section>\n";
  body +=
      "<section id=\"heatmap\"><h2>Busy and back-pressured time</h2>\n<p class=\"legend\">Per "
      "vertex, the mean over its subtasks; expand a vertex for its subtasks. Colour: idle "
      "<i style=\"background:#cfe2f3\"></i> to busy <i style=\"background:#d7301f\"></i>, "
      "back-pressured darkens <i style=\"background:#222\"></i> (ms per second, as Flink's "
      "busyTimeMsPerSecond / backPressuredTimeMsPerSecond).</p>\n" +
      heatmap_section(run) + "</section>\n";
  body += "<section id=\"queues\"><h2>Queued buffers</h2>\n" + queues_svg(run) + "</section>\n";
  body += "<section id=\"config\"><h2>Configuration that differs from Flink's defaults</h2>\n" +
          config_section(run) + "</section>\n";
  const std::string scenario = run.summary.value("scenario", std::string("run"));
  return page(
      "ckptsim report: " + scenario,
      fmt::format("{} · Flink {} · seed {} · {} simulated",
                  run.job_name.empty() ? run.job_id : run.job_name,
                  run.summary.value("flink_version", std::string("?")),
                  json_scalar(run.summary.value("seed", ordered_json(0))), human_ms(run.end_ms)),
      body);
}

std::vector<ConfigDifference> config_differences(const ordered_json& config) {
  std::vector<ConfigDifference> out;
  if (!config.is_object()) return out;
  const auto check = [&](const char* field, const char* key, const ordered_json& flink_default,
                         const std::string& shown_default) {
    if (!config.contains(field)) return;
    const ordered_json& v = config[field];
    if (v != flink_default) out.push_back({key, json_scalar(v), shown_default});
  };
  // CheckpointConfig's defaults as Flink's REST handler (CheckpointConfigHandler) writes them.
  if (config.contains("interval"))
    out.push_back({"execution.checkpointing.interval",
                   human_ms(config.value("interval", std::int64_t{0})),
                   "none (checkpointing disabled)"});
  check("mode", "execution.checkpointing.mode", "exactly_once", "EXACTLY_ONCE");
  check("timeout", "execution.checkpointing.timeout", 600000, "10 min");
  check("min_pause", "execution.checkpointing.min-pause", 0, "0 ms");
  check("max_concurrent", "execution.checkpointing.max-concurrent-checkpoints", 1, "1");
  if (config.contains("externalization") && config["externalization"].is_object() &&
      config["externalization"].value("enabled", false))
    out.push_back({"execution.checkpointing.externalized-checkpoint-retention",
                   config["externalization"].value("delete_on_cancellation", true)
                       ? "DELETE_ON_CANCELLATION"
                       : "RETAIN_ON_CANCELLATION",
                   "NO_EXTERNALIZED_CHECKPOINTS"});
  check("state_backend", "state.backend.type", "HashMapStateBackend", "hashmap");
  check("checkpoint_storage", "state.checkpoint-storage", "JobManagerCheckpointStorage",
        "jobmanager (filesystem when state.checkpoints.dir is set)");
  check("unaligned_checkpoints", "execution.checkpointing.unaligned", false, "false");
  check("tolerable_failed_checkpoints", "execution.checkpointing.tolerable-failed-checkpoints", 0,
        "0");
  check("aligned_checkpoint_timeout", "execution.checkpointing.aligned-checkpoint-timeout", 0,
        "0 ms");
  check("checkpoints_after_tasks_finish",
        "execution.checkpointing.checkpoints-after-tasks-finish.enabled", true, "true");
  check("state_changelog_enabled", "state.backend.changelog.enabled", false, "false");
  check("changelog_periodic_materialization_interval",
        "state.backend.changelog.periodic-materialize.interval", 600000, "10 min");
  return out;
}

std::string comparison_report_html(const Comparison& cmp) {
  std::string body;
  const std::size_t nkeys = cmp.keys.size();
  const auto setting_label = [&](const SettingSummary& s) {
    std::string label;
    for (std::size_t k = 0; k < s.values.size(); ++k)
      label += (k ? ", " : "") + (k < nkeys ? cmp.keys[k] : std::string("?")) + "=" + s.values[k];
    return label;
  };
  const auto value_text = [](Metric m, double v) {
    if (is_fraction(m)) return fmt::format("{:.1f} %", v * 100);
    if (is_duration(m)) return human_ms(static_cast<std::int64_t>(std::llround(v)));
    return fmt::format("{:.4g}", v);
  };
  // The table.
  body +=
      "<section id=\"table\"><h2>Comparison</h2><p class=\"note\">Mean ± 95 % confidence "
      "interval (Student's t) over the seeds.</p><div class=\"table-wrap\"><table "
      "class=\"cmp\"><tr><th>setting</th><th>runs</th>";
  for (std::size_t m = 0; m < kMetricCount; ++m)
    body += std::string("<th>") + esc(metric_title(static_cast<Metric>(m))) + "</th>";
  body += "</tr>\n";
  for (std::size_t i = 0; i < cmp.settings.size(); ++i) {
    const SettingSummary& s = cmp.settings[i];
    body += fmt::format("<tr{}><th>{}</th><td>{}{}</td>", s.best || s.tied ? " class=\"best\"" : "",
                        esc(setting_label(s)), s.runs,
                        s.errors ? fmt::format(" ({} failed to load)", s.errors) : "");
    for (std::size_t m = 0; m < kMetricCount && m < s.metrics.size(); ++m) {
      const Estimate& e = s.metrics[m];
      body += e.n == 0 ? "<td>-</td>"
                       : "<td>" + esc(value_text(static_cast<Metric>(m), e.mean)) + " ± " +
                             esc(value_text(static_cast<Metric>(m), e.ci95)) + "</td>";
    }
    body += "</tr>\n";
  }
  body += "</table></div>";
  std::vector<std::string> chosen;
  for (const SettingSummary& s : cmp.settings)
    if (s.best || s.tied) chosen.push_back("<b>" + esc(setting_label(s)) + "</b>");
  if (chosen.size() == 1) body += "<p>Best setting: " + chosen.front() + "</p>";
  if (chosen.size() > 1)
    body += fmt::format(
        "<p>Best or tied for the best (none better than the others beyond noise): "
        "{}</p>",
        fmt::join(chosen, "; "));
  body += "</section>\n";

  // Each metric against each varied key: x the key's values in grid order; one series per
  // combination of the other keys' values.
  for (std::size_t k = 0; k < nkeys; ++k) {
    std::vector<std::string> xs;
    std::vector<std::string> series;
    std::vector<std::size_t> x_of(cmp.settings.size()), series_of(cmp.settings.size());
    for (std::size_t i = 0; i < cmp.settings.size(); ++i) {
      const SettingSummary& s = cmp.settings[i];
      const std::string x = k < s.values.size() ? s.values[k] : "?";
      std::string rest;
      for (std::size_t o = 0; o < s.values.size(); ++o)
        if (o != k) rest += (rest.empty() ? "" : ", ") + cmp.keys[o] + "=" + s.values[o];
      auto xi = std::find(xs.begin(), xs.end(), x);
      if (xi == xs.end()) xi = xs.insert(xs.end(), x);
      auto si = std::find(series.begin(), series.end(), rest);
      if (si == series.end()) si = series.insert(series.end(), rest);
      x_of[i] = static_cast<std::size_t>(xi - xs.begin());
      series_of[i] = static_cast<std::size_t>(si - series.begin());
    }
    body += "<section class=\"by-key\"><h2>Metrics against <code>" + esc(cmp.keys[k]) +
            "</code></h2>\n";
    if (series.size() > 1) {
      body += "<p class=\"legend key-legend\">";
      for (std::size_t s = 0; s < series.size(); ++s)
        body += fmt::format("<span><i style=\"background:{}\"></i>{}</span> ",
                            kPalette[s % std::size(kPalette)], esc(series[s]));
      body += "</p>\n";
    }
    body += "<div class=\"small-multiples\">\n";
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      const auto metric = static_cast<Metric>(m);
      double lo = 0, hi = 0;
      bool any = false;
      for (const SettingSummary& s : cmp.settings) {
        if (m >= s.metrics.size() || s.metrics[m].n == 0) continue;
        lo = std::min(lo, s.metrics[m].mean - s.metrics[m].ci95);
        hi = std::max(hi, s.metrics[m].mean + s.metrics[m].ci95);
        any = true;
      }
      if (!any) continue;
      if (hi <= lo) hi = lo + 1;
      Plot p;
      p.width = 360;
      p.height = 200;
      p.left = 70;
      p.top = 22;
      p.bottom = 36;
      p.x0 = -0.5;
      p.x1 = static_cast<double>(xs.size()) - 0.5;
      const auto y = [&](double v) {
        return p.inner_bottom() - (v - lo) / (hi - lo) * (p.inner_bottom() - p.top);
      };
      std::string svg = svg_open(p, "chart metric",
                                 std::string(metric_title(metric)) + " against " + cmp.keys[k]);
      svg += fmt::format("<text class=\"label\" x=\"{}\" y=\"14\">{}</text>\n", num(p.left),
                         esc(metric_title(metric)));
      const double step = nice_step(hi - lo, 4);
      for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9; v += step)
        svg += fmt::format(
            "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text "
            "class=\"tick\" "
            "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
            num(p.left), num(y(v)), num(p.width - p.right), num(p.left - 4), num(y(v) + 4),
            esc(value_text(metric, v)));
      for (std::size_t x = 0; x < xs.size(); ++x)
        svg +=
            fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                        num(p.x(static_cast<double>(x))), num(p.inner_bottom() + 14),
                        esc(xs[x].size() > 14 ? xs[x].substr(0, 13) + "…" : xs[x]));
      svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n",
                         num(p.left), num(p.inner_bottom()), num(p.width - p.right));
      const double spread = series.size() > 1 ? 0.3 / static_cast<double>(series.size()) : 0;
      for (std::size_t i = 0; i < cmp.settings.size(); ++i) {
        const SettingSummary& s = cmp.settings[i];
        if (m >= s.metrics.size() || s.metrics[m].n == 0) continue;
        const Estimate& e = s.metrics[m];
        const double cx = p.x(static_cast<double>(x_of[i]) +
                              spread * (static_cast<double>(series_of[i]) -
                                        (static_cast<double>(series.size()) - 1) / 2));
        const char* colour = kPalette[series_of[i] % std::size(kPalette)];
        svg += fmt::format(
            "<g><line class=\"ci-whisker\" stroke=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" "
            "y2=\"{3}\"/>"
            "<circle class=\"ci-point\" data-setting=\"{4}\" fill=\"{0}\" cx=\"{1}\" cy=\"{5}\" "
            "r=\"3.5\"/>"
            "<title>{6}: {7} ± {8} (n={9})</title></g>\n",
            colour, num(cx), num(y(e.mean - e.ci95)), num(y(e.mean + e.ci95)), i, num(y(e.mean)),
            esc(setting_label(s)), esc(value_text(metric, e.mean)), esc(value_text(metric, e.ci95)),
            e.n);
      }
      svg += "</svg>\n";
      body += svg;
    }
    body += "</div></section>\n";
  }
  std::string subtitle = fmt::format("{} settings", cmp.settings.size());
  for (const std::string& k : cmp.keys) subtitle += " · " + k;
  return page("ckptsim comparison: " + cmp.scenario, subtitle, body);
}

}  // namespace ckptsim::analysis
