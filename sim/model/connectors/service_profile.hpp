// How fast an external system serves over simulated time: its base rate times the factors of
// the timeline's `<system>.slow-down` / `<system>.stall` windows in force. Every connector's
// system (the CDC database, Doris, a JDBC database, a called service) asks it how much work is
// done in a span and when a piece of work ends.
#pragma once

#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/config.hpp"

namespace ckptsim::model {

class ServiceProfile {
 public:
  ServiceProfile() = default;
  // The slow-down and stall windows the timeline gives the system named `system` (system
  // operations take `at` only, so they are known up front).
  ServiceProfile(const Scenario& scenario, const std::string& system);

  // Windows may overlap; factors multiply; factor 0 is a stall.
  void add_window(core::SimTime from, core::SimTime until, double factor);
  // Work done in [from, to) at `rate` units per second.
  double amount(core::SimTime from, core::SimTime to, double rate) const;
  // When `work` units are done, starting at `from` at `rate` units per second; kNever if a
  // stall for ever stops it first.
  core::SimTime finish_time(core::SimTime from, double work, double rate) const;
  double factor_at(core::SimTime t) const;
  // Whether any window overlaps [from, to).
  bool changes_within(core::SimTime from, core::SimTime to) const;

 private:
  struct Window {
    core::SimTime from, until;
    double factor;
  };
  std::vector<Window> windows_;
};

}  // namespace ckptsim::model
