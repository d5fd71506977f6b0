// slidedp_worker's options (apps/worker_options.h): each declared once, with its default.
#include "apps/worker_options.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "apps/option_numbers.h"
#include "apps/path_options.h"
#include "shm/segment.h"

namespace slidedp {

namespace {
// The shortest timeouts that mean anything: a wait deadline below 1 s fails on any scheduling
// hiccup; a liveness verdict needs several of the watchdog's 0.05 s periods (JobOptions::
// interval_s) to have passed, else a live rank is declared hung.
constexpr double kMinWaitTimeoutS = 1.0;
constexpr double kMinLivenessTimeoutS = 1.0;

/// Seconds of a deadline or timeout: 0 when `zero_ok` (no deadline), else a finite number in
/// [`min_s`, 1e9] (~31 years), so the nanosecond arithmetic of the waits (shm::monotonicNs() +
/// seconds * 1e9) cannot overflow; NaN, inf, a sign and hexadecimal are refused (plainNumber;
/// CLI11's NonNegativeNumber lets NaN through).
CLI::Validator seconds(double min_s, bool zero_ok, const char* why_min) {
  return CLI::Validator(
      [min_s, zero_ok, why_min](std::string& s) -> std::string {
        const double v = plainNumber(s);  // NaN unless a plain finite decimal
        if (std::isnan(v) || (!zero_ok && v == 0) || v > 1e9)
          return std::string("seconds must be a finite number ") + (zero_ok ? ">= 0" : "> 0") +
                 " and at most 1e9, got " + s;
        if (v > 0 && v < min_s)
          return fmt::format("{} s is too short to tell a live peer from a dead one: at least {:g} s "
                             "({})", s, min_s, why_min);
        return std::string();
      },
      zero_ok ? "SECONDS>=0" : "SECONDS>0");
}
}  // namespace

void addWorkerOptions(CLI::App& app, WorkerOptions& o) {
  app.add_option("--device", o.device, "Worker device: auto (cuda when a GPU is visible), cuda, cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  app.add_option("--virtual-node-size", o.virtual_node_size,
                 "Ranks per virtual node (0: real shared-memory nodes). Lets one machine act as "
                 "several nodes, each with its own leader and segment")->capture_default_str();
  app.add_option("--shm-name", o.shm_name,
                 "Name of the node's segment in /dev/shm (default: slidedp-u<uid>-<job id>-n<node>)")
      ->check(CLI::Validator(
          [](std::string& name) {
            if (name.empty()) return std::string();  // the default: slidedp-u<uid>-<job id>-n<node>
            const std::string why = shm::segmentNameProblem(name);
            return why.empty() ? std::string() : fmt::format("'{}' cannot name a file in /dev/shm: {}", name, why);
          },
          "NAME"));
  auto* m = app.add_option_group("Model shape", "Dimensions used to size the host state "
                                 "(default: the stories260K shape)");
  m->add_option("--layers", o.shape.num_layers, "Decoder layers L")->capture_default_str();
  m->add_option("--hidden", o.shape.hidden_size, "Hidden size C")->capture_default_str();
  m->add_option("--intermediate", o.shape.intermediate_size, "MLP intermediate size")->capture_default_str();
  m->add_option("--heads", o.shape.num_heads, "Attention heads H")->capture_default_str();
  m->add_option("--kv-heads", o.shape.num_kv_heads, "Key/value heads (GQA)")->capture_default_str();
  m->add_option("--head-dim", o.shape.head_dim, "Head dimension")->capture_default_str();
  m->add_option("--vocab", o.shape.vocab_size, "Vocabulary size V")->capture_default_str();
  app.add_option("--ring-slots", o.ring_slots, "Gradient staging ring depth (chunks in flight per worker)")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--chunk-numel", o.chunk_numel, "Elements per gradient chunk")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 34))->capture_default_str();
  app.add_option("--grad-dtype", o.grad_dtype, "Dtype in which gradients cross to the host (staging ring): f32 or bf16")
      ->check(CLI::IsMember({"f32", "bf16"}))->capture_default_str();
  app.add_option("--handoff-rounds", o.handoff_rounds,
                 "Chunks pushed through the staging ring in the start-up self-check")
      ->check(CLI::Range(0, 1 << 24))->capture_default_str();
  app.add_option("--wait-timeout", o.wait_timeout_s, "Deadline in seconds of a rank's wait for a "
                 "peer (0: none; a wait then ends only when the watchdog proves the peer dead, "
                 "hung or stalled, so a step may legitimately take any time)")
      ->check(seconds(kMinWaitTimeoutS, true, "or 0 for no deadline; a shorter one fails on any scheduling delay"))->capture_default_str();
  app.add_option("--heartbeat-timeout", o.heartbeat_timeout_s,
                 "Seconds without a heartbeat (the watchdog thread of a node peer not scheduled "
                 "at all) after which that peer is declared hung")
      ->check(seconds(kMinLivenessTimeoutS, false, "20 of the watchdog's 0.05 s periods"))->capture_default_str();
  app.add_option("--stall-timeout", o.stall_timeout_s,
                 "Seconds a node peer may stay stopped (SIGSTOP, a debugger: /proc state T/t) "
                 "with its progress counter unchanged before it is declared stalled")
      ->check(seconds(kMinLivenessTimeoutS, false, "20 of the watchdog's 0.05 s periods"))->capture_default_str();
  app.add_flag("--log-all-ranks", o.log_all_ranks, "Log info lines from every rank, not only rank 0");
  auto* t = app.add_option_group("Testing", "Fault injection and hooks for the test suite");
  t->add_option("--hold", o.hold_s, "Seconds to stay up after set-up (to kill ranks in tests)");
  t->add_option("--fail-rank", o.fail_rank, "World rank that throws after set-up");
  t->add_option("--fail-message", o.fail_message, "Message of the injected failure");
  t->add_option("--extra-state-bytes", o.extra_state_bytes, "Bytes added to the segment (oversize tests)");
  fileOption(t->add_option("--pid-file", o.pid_file, "Append '<world rank> <pid>' to this file at start-up"));
  t->add_option("--kill-at", o.kill_at, "Training: PHASE@STEP[:RANK]: that world rank (default 0) "
                "SIGKILLs itself at the start of the step (step), half-way through a worker's "
                "forward (forward) or backward (backward), in a worker's hand-off thread mid-unit "
                "(handoff), with half of the step's chunks updated (update, leader), with half of "
                "the step's checkpoint written by the leader's writer thread (checkpoint), or "
                "before the export (export)");
#ifdef SLIDEDP_WITH_TRAINING
  addTrainOptions(app, o.train);
#endif
  refuseEmptyValues(app);
}

void refuseEmptyValues(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string def = opt->get_default_str();
    if (opt->get_expected_min() < 1 || def.empty() || def == "\"\"") continue;  // flags; "" default
    opt->check(CLI::Validator(
        [def](std::string& v) -> std::string {
          if (!v.empty()) return std::string();
          return "an empty value (an unset shell variable?) would be read as 0 or false; give a "
                 "value, or leave the flag out for its default (" + def + ")";
        },
        ""));
  }
  for (CLI::App* group : app.get_subcommands([](CLI::App*) { return true; })) refuseEmptyValues(*group);
}

}  // namespace slidedp
