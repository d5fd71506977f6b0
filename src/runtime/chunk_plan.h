// The order in which gradients cross from workers to the leader within one step, and how a
// unit is sharded among G workers (design.md, "One training step").
//
// Hand-off order follows backward: the head unit (final norm, + LM head when untied), decoder
// layers L..1, then the embedding (last, because with tied embeddings it also collects the
// LM head's gradient). With an update tail of m layers (--update-tail-units m) the last m
// layers' gradients wait for the embedding's and follow it in forward order: head, L..m+1,
// embedding, 1..m. The next step's forward needs the embedding and layer 1 first and layer m
// last of them, so it can start while the leader still updates layers 2..m (the leader-bound
// step's tail, trainer.h "early agreement"). With the row-split embedding update the embedding goes twice: its rows
// outside the step's token rows right after the head, its token rows last. A unit with a
// gradient bucket split (as DDP's buckets: the part of a gradient its backward finishes first
// goes first) hands off [split, numel) before [0, split): a decoder layer's MLP and
// post-attention norm while its attention's backward still runs. Each unit's gradient, or each
// bucket, is cut into chunks of at most chunk_numel elements; chunk i of step s (1-based) is the (s-1)*chunksPerStep()+i'th chunk of the run,
// and that global sequence number k picks the staging-ring slot (k mod S) and its use count
// (k div S). Leader and workers compute the same plan independently.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace slidedp {

/// What a chunk's staging slot carries (the row-split embedding update: runtime/token_rows.h).
enum class ChunkPass : uint8_t {
  kWhole,            // the unit's gradient over [begin, end)
  kEmbeddingDense,   // unit 0, right after the head: every row's gradient as of then (tied: the
                     // LM head's share; untied: none, the slot is not written and reads as
                     // zero); the leader updates the rows outside the step's token rows
  kEmbeddingTokens,  // unit 0, last: the token rows' part of [begin, end), packed
                     // ([packedIndex(begin), packedIndex(end)) of TokenRows); the rest of
                     // their gradient, after which the leader updates them
};

struct Chunk {
  int unit = 0;
  int64_t begin = 0;  // elements within the unit
  int64_t end = 0;
  bool last_of_unit = false;  // the unit's version is published after this chunk
  ChunkPass pass = ChunkPass::kWhole;
  int64_t numel() const { return end - begin; }
};

/// Elements per shard are a multiple of this (256 B of fp32), so shard boundaries are
/// vector- and cache-line-friendly.
inline constexpr int64_t kShardAlignElems = 64;

/// The most chunks one step may have (ChunkPlan::checkChunkCount).
inline constexpr int64_t kMaxChunksPerStep = int64_t{1} << 20;

struct ChunkPlan {
  std::vector<Chunk> chunks;  // hand-off order of one step
  std::vector<int64_t> unit_numels;
  int64_t chunk_numel = 0;
  bool split_embedding = false;
  /// Whether workers write the kEmbeddingDense slots (tied embeddings: the LM head's share);
  /// false (untied): they only publish them, and the leader uses a zero gradient.
  bool dense_pass_written = true;
  /// Per unit: where its first-handed-off bucket begins (0 < split < numel), or 0 for one
  /// bucket (model::ParamLayout::gradientBucketSplits).
  std::vector<int64_t> bucket_splits;
  /// Decoder layers handed off after the embedding, in forward order (layers 1..tail_units);
  /// 0: none, the backward's order throughout.
  int tail_units = 0;

  /// Throws UserError when chunk_numel < 1 or a unit is empty. With `split_embedding` the
  /// embedding (unit 0) is handed off twice per step: kEmbeddingDense chunks right after the
  /// head unit's, kEmbeddingTokens chunks last (same element ranges; the unit's version is
  /// published after the last of these); otherwise once, last.
  /// `bucket_splits` (empty, or one per unit): unit u with 0 < bucket_splits[u] < its numel is
  /// handed off in two buckets, [split, numel) then [0, split), each cut into chunks; the
  /// unit's version is published after the last chunk of the second. A split outside
  /// (0, numel) means one bucket. Throws UserError on a size mismatch.
  /// `tail_units` (0 .. decoder layers = units - 2): the update tail above; throws UserError
  /// outside that range.
  static ChunkPlan build(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                         bool split_embedding = false,
                         const std::vector<int64_t>& bucket_splits = {}, int tail_units = 0);
  /// This plan with update tail `tail_units` (build()'s other arguments this plan's; the
  /// chunks the same, in the tail's order): as many chunks per step, so the hand-off sequence
  /// numbers stay continuous across a change between steps (Trainer::setRunOptions). Throws
  /// UserError outside 0..decoder layers.
  ChunkPlan withTail(int tail_units) const;
  /// The chunks of one step (what build() makes, without making them).
  static int64_t countChunks(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                             bool split_embedding = false,
                             const std::vector<int64_t>& bucket_splits = {});
  /// Throws UserError, naming --chunk-numel, the count and the smallest --chunk-numel that
  /// stays within kMaxChunksPerStep, when chunk_numel < 1 or a step would have more chunks
  /// than that (each is a hand-off with its own synchronisation: a step of millions of tiny
  /// chunks runs for hours and its plan alone takes gigabytes). Called by build().
  static void checkChunkCount(const std::vector<int64_t>& unit_numels, int64_t chunk_numel,
                              bool split_embedding = false,
                              const std::vector<int64_t>& bucket_splits = {});
  /// Whether any unit is handed off in two buckets.
  bool bucketed() const {
    for (int64_t s : bucket_splits)
      if (s > 0) return true;
    return false;
  }
  /// Unit u's bucket split (0: one bucket).
  int64_t bucketSplit(int u) const {
    return u >= 0 && u < static_cast<int>(bucket_splits.size()) ? bucket_splits[u] : 0;
  }

  int64_t chunksPerStep() const { return static_cast<int64_t>(chunks.size()); }
  /// The global sequence number of chunk `i` of step `step` (1-based).
  int64_t sequence(int64_t step, int64_t i) const { return (step - 1) * chunksPerStep() + i; }
  /// Hand-off order of units (head first; the embedding last, or before the tail's layers).
  std::vector<int> unitOrder() const;
  /// The index of the first chunk of the embedding's last hand-off (its token pass, or its
  /// whole gradient): the step's backward is over once it is in. Where the tail begins.
  int64_t embeddingLastPassStart() const;
  /// The order in which the leader first updates each unit in a step: unitOrder(), except that
  /// with split_embedding the embedding comes right after the head (its dense pass).
  std::vector<int> updateOrder() const;

  /// Equal shard size of a unit of n elements among G workers: ceil(n / G) rounded up to
  /// kShardAlignElems; the last shards may extend past n (padding, never read from the host).
  static int64_t shardNumel(int64_t n, int G);
  /// [begin, end) of worker w's shard, clipped to n (may be empty).
  static std::pair<int64_t, int64_t> shard(int64_t n, int G, int w);
};

}  // namespace slidedp
