// CheckpointOptions.forConfig: how the barriers of one checkpoint are handled, from its
// properties and the checkpointing configuration. The mode comes first: at-least-once barriers
// never block (the task's handler is the CheckpointBarrierTracker), savepoints included; in
// exactly-once mode savepoints are always aligned (withUnalignedUnsupported); a checkpoint is
// unaligned when unaligned checkpoints are on without an aligned-checkpoint timeout, and aligned
// but timeoutable (isTimeoutable: 0 < timeout < Long.MAX) with one.
#pragma once

#include "sim/model/checkpoint_request_decider.hpp"
#include "sim/model/config.hpp"

namespace ckptsim::model {

struct CheckpointOptions {
  bool unaligned = false;
  bool aligned = false;      // blocks the channels that delivered it (exactly-once)
  bool timeoutable = false;  // aligned, switching to unaligned after `timeout`
  Duration timeout = 0;

  static CheckpointOptions for_config(const CheckpointProperties& props,
                                      const CheckpointingConfig& config) {
    CheckpointOptions o;
    const bool exactly_once = config.mode == CheckpointingMode::exactly_once;
    const bool unaligned_supported = !props.is_savepoint() && exactly_once && config.unaligned;
    o.unaligned = unaligned_supported && config.aligned_checkpoint_timeout == 0;
    o.aligned = !o.unaligned && exactly_once;
    o.timeoutable = unaligned_supported && config.aligned_checkpoint_timeout > 0 &&
                    config.aligned_checkpoint_timeout < core::kNever;
    o.timeout = config.aligned_checkpoint_timeout;
    return o;
  }
};

}  // namespace ckptsim::model
