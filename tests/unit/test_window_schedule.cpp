// The window schedule (runtime/window_schedule.h) replayed as the worker runs it (worker.cpp
// step(): forward, head, backward, then the next step's forward): a slot's content is tracked
// through every delivery, and each compute must find its unit in the slot it reads. Checks the
// two places that read a slot without delivering into it (the head's resident embedding, the
// backward's first layer) and that no delivery overwrites a unit the compute still needs.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/window_schedule.h"

using slidedp::WindowSchedule;

namespace {

struct Replay {
  explicit Replay(const WindowSchedule& s) : ws(s), slot(s.slots(), -1), pinned(s.slots(), false) {}
  const WindowSchedule& ws;
  std::vector<int> slot;     // unit in each slot (-1: none)
  std::vector<bool> pinned;  // delivered or used and not yet released
  void deliver(int u, int k) {
    ASSERT_GE(k, 0);
    ASSERT_LT(k, ws.slots());
    ASSERT_FALSE(pinned[k]) << "unit " << u << " delivered into slot " << k << ", which unit "
                            << slot[k] << " still holds for its compute";
    slot[k] = u;
    pinned[k] = true;
  }
  void use(int u, int k) { ASSERT_EQ(slot[k], u) << "slot " << k; pinned[k] = true; }
  void release(int k) { pinned[k] = false; }

  // One step as worker.cpp runs it; tied: the head reads the embedding too.
  void step(bool tied) {
    const int L = ws.L, head = ws.headUnit();
    if (ws.layerOneFirst()) deliver(1, ws.forwardSlot(1));
    if (ws.embeddingDeliveryUnit() < 0) deliver(0, ws.forwardSlot(0));
    for (int u = 0; u <= L; ++u) {
      const int next = u < L ? u + 1 : head;
      if (!(u == 0 && ws.layerOneFirst())) deliver(next, ws.forwardSlot(next));
      if (u == ws.embeddingDeliveryUnit()) deliver(0, ws.forwardSlot(0));
      if (!(u == 0 && ws.lookupFromHost())) use(u, ws.forwardSlot(u));  // (else host memory)
      if (!(u == 0 && ws.resident)) release(ws.forwardSlot(u));
    }
    if (tied) {
      if (ws.headDeliversEmbedding()) deliver(0, ws.headEmbeddingSlot());
      use(0, ws.headEmbeddingSlot());
    }
    use(head, ws.forwardSlot(head));
    release(ws.forwardSlot(head));
    if (tied) release(ws.headEmbeddingSlot());
    if (ws.backwardDeliversFirst()) deliver(L, ws.backwardSlot(L));
    for (int u = L; u >= 1; --u) {
      if (u > 1) deliver(u - 1, ws.backwardSlot(u - 1));
      use(u, ws.backwardSlot(u));
      release(ws.backwardSlot(u));
    }
  }
};

}  // namespace

TEST(WindowSchedule, EveryComputeFindsItsUnitAndNoDeliveryOverwritesOneInUse) {
  for (int K : {2, 3, 4})
    for (int L : {1, 2, 3, 5, 36})
      for (bool resident : {false, true})
        for (bool host_lookup : {false, true})
          for (bool tied : {false, true}) {
            if (resident && !tied) continue;  // the worker makes the embedding resident only when tied
            const WindowSchedule ws{K, L, resident, host_lookup};
            SCOPED_TRACE(testing::Message() << "K " << K << " L " << L << " resident " << resident
                                            << " host lookup " << host_lookup << " tied " << tied);
            Replay r(ws);
            for (int s = 0; s < 3 && !testing::Test::HasFatalFailure(); ++s) r.step(tied);
          }
}

TEST(WindowSchedule, TheResidentEmbeddingHasItsOwnSlotAndTheRotationHoldsTheRest) {
  const WindowSchedule ws{2, 36, true};
  EXPECT_EQ(ws.slots(), 3);
  EXPECT_EQ(ws.forwardSlot(0), 2);
  EXPECT_EQ(ws.headEmbeddingSlot(), 2);
  EXPECT_FALSE(ws.headDeliversEmbedding());
  EXPECT_FALSE(ws.backwardDeliversFirst());
  EXPECT_TRUE(ws.layerOneFirst());
  for (int u = 1; u <= ws.headUnit(); ++u) EXPECT_LT(ws.forwardSlot(u), 2) << u;
  // Without it: unit u in slot u mod K, the head's embedding in the slot after the head's.
  const WindowSchedule plain{2, 36, false};
  EXPECT_EQ(plain.slots(), 2);
  EXPECT_EQ(plain.forwardSlot(5), 1);
  EXPECT_TRUE(plain.headDeliversEmbedding());
  EXPECT_EQ(plain.headEmbeddingSlot(), (plain.forwardSlot(plain.headUnit()) + 1) % 2);
  EXPECT_TRUE(plain.backwardDeliversFirst());
  EXPECT_FALSE(plain.layerOneFirst());
}

TEST(WindowSchedule, TheHostLookupDeliversTheEmbeddingAfterLayerTwo) {
  const WindowSchedule ws{2, 36, true, true};
  EXPECT_TRUE(ws.lookupFromHost());
  EXPECT_EQ(ws.embeddingDeliveryUnit(), 1);  // during layer 1, behind layer 2's copy
  EXPECT_EQ(ws.forwardSlot(0), 2);           // still slot K, for the head
  EXPECT_EQ(ws.headEmbeddingSlot(), 2);
  // Only with the resident embedding (the head reads slot K; without it the forward's slot
  // rotates), and never without a decoder layer to deliver behind.
  EXPECT_FALSE((WindowSchedule{2, 36, false, true}.lookupFromHost()));
  EXPECT_EQ((WindowSchedule{2, 36, false, true}.embeddingDeliveryUnit()), -1);
  EXPECT_EQ((WindowSchedule{2, 36, true, false}.embeddingDeliveryUnit()), -1);
}
