// The run's settings checked before start-up (before the model loads and the segment is made),
// each message naming its flag, with a HINT where one helps. Pure checks, no MPI: every rank
// runs them on the same options and agrees on the outcome (train_job.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "apps/train_job.h"
#include "data/reference_batches.h"

namespace slidedp {

/// The most tokens one step may hold (--batch-size x --seq-len, and a --route-sweep item's rows
/// x --seq-len): 2^40, far below where the sizes derived from them overflow.
inline constexpr int64_t kMaxTokensPerStep = int64_t{1} << 40;

/// Refuses `rows` x `seq_len` above kMaxTokensPerStep (and a `seq_len` above it alone), before
/// any size is derived from them. `rows_name` names where the rows came from in the message
/// ("--batch-size 8", "--route-sweep item 'replicated/cpu@8': @8 rows"); `hint_prefix` precedes
/// the largest allowed rows in the HINT ("a --batch-size of at most ", "at most @"). Throws UserError.
void checkTokensPerStep(int64_t rows, int64_t seq_len, const std::string& rows_name,
                        const std::string& hint_prefix);

/// Every setting checked before start-up (loading the model, creating the segment), with the
/// flag's name in the message. Throws UserError.
/// The run's names and switches parsed into o.train (routes, node layout, schedule, activation
/// policy, attention, embedding, GEMM and bucket choices) and its schedule's total steps
/// (lastStep). Throws UserError naming a bad value with its choices.
void resolveTrainOptions(TrainJobOptions& o);
void checkSettings(const TrainJobOptions& o, int num_workers);

/// reference:FILE data against the flags: its stored B and T are the run's, its stored steps
/// bound --steps, every stored batch has a row for each of the `num_workers` workers, and its
/// token ids and labels must fit the vocabulary. Throws UserError.
void checkReferenceData(data::ReferenceBatches& ref, const TrainJobOptions& o, int64_t steps,
                        int64_t vocab, int num_workers);

}  // namespace slidedp
