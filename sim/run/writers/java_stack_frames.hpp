// The stack frames Java prints under a Flink exception that ckptsim logs: which frames, per Flink
// release and the JDK it runs on, and the two forms they are printed in (log4j2's extended
// throwable in jobmanager.log, Throwable.printStackTrace in the REST "stacktrace" fields).
// Knows nothing about the model: a ThrowSite names where the exception was created.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/model/config.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::run {

// One StackTraceElement: declaring class, method, source file and line; `jdk` for a class of the
// Java runtime (printed with the JDK's version, and with its module under JDK 9+ in
// printStackTrace).
struct JavaFrame {
  std::string_view declaring_class;  // "org.apache.flink.runtime.checkpoint.CheckpointCoordinator"
  std::string_view method;           // "abortPendingCheckpoint"
  std::string_view file;             // "CheckpointCoordinator.java"
  int line = 0;
  bool jdk = false;
};

// The frames of an exception created at `site` under `version`, innermost first, down to the
// thread's run(); empty for ThrowSite::none (frames ckptsim cannot derive from Flink's source).
std::vector<JavaFrame> java_stack_frames(ThrowSite site, model::FlinkVersion version);

// log4j2's %xEx lines, "\tat <method>(<file>:<line>) [<jar>:<version>]": the Flink frames in
// flink-dist-<release>.jar, the JDK's as "?:1.8.0_351" (JDK 8) or "?:?" (JDK 9+). log4j2 marks
// a frame exact (no leading '~') when its class is on the logging thread's stack, i.e. the
// exception is logged by the thread that created it (`logged_on_creating_thread`).
std::vector<std::string> log4j_frame_lines(ThrowSite site, model::FlinkVersion version,
                                           bool logged_on_creating_thread);

// Throwable.printStackTrace's lines (ExceptionUtils.stringifyException), "\tat
// <method>(<file>:<line>)"; JDK 9+ prefixes a JDK frame with its module, "java.base/".
std::vector<std::string> print_stack_trace_frame_lines(ThrowSite site, model::FlinkVersion version);

}  // namespace ckptsim::run
