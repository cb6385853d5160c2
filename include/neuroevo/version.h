// SPDX-License-Identifier: MIT
// Library version and the wire/checkpoint format versions that must match between processes.
#ifndef NEUROEVO_VERSION_H
#define NEUROEVO_VERSION_H

#define NE_VERSION_MAJOR 0
#define NE_VERSION_MINOR 1
#define NE_VERSION_PATCH 0
#define NE_VERSION_STRING "0.1.0"

// Bumped whenever checkpoints written by one build cannot be read by another.
#define NE_CHECKPOINT_VERSION 1

#endif
