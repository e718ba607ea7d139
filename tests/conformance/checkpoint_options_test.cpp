// CheckpointOptionsTest (flink-runtime), ported to CheckpointOptions::for_config.
#include <catch2/catch.hpp>

#include "sim/model/checkpointing/checkpoint_options.hpp"

using namespace ckptsim;
using model::CheckpointOptions;
using model::CheckpointProperties;

namespace {

model::CheckpointingConfig unaligned_with_timeout(core::Duration timeout) {
  model::CheckpointingConfig c;
  c.unaligned = true;
  c.aligned_checkpoint_timeout = timeout;
  return c;
}

}  // namespace

// assertTimeoutable(options, isUnaligned, isTimeoutable, alignedCheckpointTimeout) of Flink's
// test: aligned with a timeout is timeoutable; unaligned is not; a savepoint (with the unaligned
// mode unsupported) is aligned and not timeoutable whatever the timeout.
TEST_CASE("CheckpointOptionsTest.testCheckpointIsTimeoutable", "[conformance]") {
  const auto checkpoint = CheckpointProperties::checkpoint();
  const auto with_timeout =
      CheckpointOptions::for_config(checkpoint, unaligned_with_timeout(core::milliseconds(10)));
  CHECK_FALSE(with_timeout.unaligned);
  CHECK(with_timeout.aligned);
  CHECK(with_timeout.timeoutable);
  CHECK(with_timeout.timeout == core::milliseconds(10));

  const auto unaligned = CheckpointOptions::for_config(checkpoint, unaligned_with_timeout(0));
  CHECK(unaligned.unaligned);
  CHECK_FALSE(unaligned.aligned);
  CHECK_FALSE(unaligned.timeoutable);

  const auto savepoint = CheckpointOptions::for_config(
      CheckpointProperties::savepoint(true), unaligned_with_timeout(core::milliseconds(10)));
  CHECK_FALSE(savepoint.unaligned);
  CHECK(savepoint.aligned);
  CHECK_FALSE(savepoint.timeoutable);

  // isTimeoutable: 0 < timeout < Long.MAX_VALUE.
  const auto never =
      CheckpointOptions::for_config(checkpoint, unaligned_with_timeout(core::kNever));
  CHECK_FALSE(never.timeoutable);
  CHECK(never.aligned);
}

// CheckpointOptions.forConfig checks the mode first: at-least-once neither aligns nor times out,
// savepoints included.
TEST_CASE(
    "CheckpointOptionsTest: at-least-once barriers are never aligned, unaligned or "
    "timeoutable (CheckpointOptions.forConfig)",
    "[conformance]") {
  auto config = unaligned_with_timeout(core::milliseconds(10));
  config.mode = model::CheckpointingMode::at_least_once;
  for (const auto& props :
       {CheckpointProperties::checkpoint(), CheckpointProperties::savepoint(true)}) {
    const auto o = CheckpointOptions::for_config(props, config);
    CHECK_FALSE(o.unaligned);
    CHECK_FALSE(o.aligned);
    CHECK_FALSE(o.timeoutable);
  }
}
