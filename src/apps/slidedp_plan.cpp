// slidedp_plan: `slidedp plan` — predicts a run's step time under every policy and prints them
// ranked (design.md, "The step-time model and policies"). Takes the same arguments as a run
// (launcher/slidedp-run --plan passes them, with the worker count, the leader's cores and the
// node count); a run's flags it does not use are accepted and ignored (slidedp_worker's own
// declarations, apps/worker_options.h), and any other flag is refused, naming the closest. Without --machine it calibrates this machine
// at the run's shape once (the worker's layer code on the device, the leader's AdamW, memory
// bandwidth, PCIe), caches the result (--calibration FILE, keyed by machine and shape) and
// reuses it; --recalibrate measures again. --evaluate prices the run's own flags instead of
// searching. One process, no MPI.
//
// defines: main()
#include <CLI/CLI.hpp>                    // defines: the command line
#include <cmath>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "apps/config_file_checks.h"     // defines: configFileProblem
#include "apps/option_suggest.h"         // defines: closestName, didYouMean, explainConfigError
#include "apps/policy_choice.h"          // defines: policyKnobsGiven (a run's knob flags given)
#include "apps/settings_checks.h"        // defines: resolveTrainOptions, checkSettings (the run's own refusals)
#include "apps/site_checks.h"            // defines: checkRunAtSite, checkDataInputs (the same, at its site)
#include "data/reference_batches.h"      // defines: ReferenceBatches (reference: data's stored shape)
#include "apps/worker_options.h"          // defines: addWorkerOptions (a run's flags, accepted)
#include "common/errors.h"                // defines: UserError
#include "formats/fs_util.h"              // defines: isRegularFile
#include "model/config.h"                 // defines: ModelConfig (the HF config)
#include "planner/calibration.h"          // defines: measureHost, deviceFingerprint, the cache
#include "planner/cost_model.h"           // defines: reserveShape, earlyAgreement
#include "planner/device_calibration.h"   // defines: measureDevice, calibratedMachine
#include "planner/plan.h"                 // defines: PlanRequest, makePlan
#include "planner/report.h"               // defines: formatPlan, formatRow, planJson
#include "planner/search.h"               // defines: searchPolicies (the --nodes-sweep rows)
#include "runtime/train_options.h"        // defines: parseNodeLayout

using namespace slidedp;
using namespace slidedp::planner;

namespace {

struct Options {
  std::string model, model_config;
  int64_t batch_size = 8, seq_len = 256;
  int gpus = 0;
  std::string device = "auto";
  double gpu_budget_gib = 0, max_grad_norm = 0;
  std::string grad_dtype = "f32";
  std::string machine, calibration, json;
  bool recalibrate = false, evaluate = false;
  int top = 12, leader_cores = 0;
  // the run's own policy (--evaluate)
  std::string delivery = "replicated", reduction = "cpu", activations = "auto";
  int64_t chunk_numel = int64_t{1} << 22, micro_batch_rows = 0, accumulation_steps = 1;
  int ring_slots = 4, window = 2, max_kept_layers = -1, leader_threads = 0, tail_units = 0;
  bool offload = false;
  std::string embedding_update = "split";
  std::string embedding_lookup = "host";
  std::string grad_buckets = "split";
  // several nodes (issue 17)
  int nodes = 0;                   // 0: the machine file's network.nodes (default 1)
  double network_gbps = 0, network_latency_us = -1;
  std::string node_layout = "sharded";
  std::vector<int> nodes_sweep;    // print the best policy for each node count (weak scaling)
};

/// The best policy for `nodes` nodes of `m` (rows per node fixed: global rows = rows_per_node x
/// nodes), one table row; a workload that fits nowhere says why.
std::string nodesRow(Workload w, MachineDescription m, int nodes, NodeLayoutKind layout_kind,
                     int64_t rows_per_node, double gpu_budget_bytes, bool bf16_staging) {
  w.nodes = nodes;
  w.node_sharded = shardsState(layout_kind);
  w.copy_sharded = layout_kind == NodeLayoutKind::kFullySharded;
  w.global_rows = rows_per_node * nodes;
  m.network.nodes = nodes;
  SearchOptions so;
  so.gpu_budget_bytes = gpu_budget_bytes;
  so.bf16_staging = bf16_staging;
  const char* layout = nodes == 1 ? "-" : nodeLayoutName(layout_kind);
  try {
    const SearchResult res = searchPolicies(w, m, so);
    const RankedPolicy& b = res.choice();
    const Prediction& pr = b.prediction;
    return fmt::format("{:>5} {:<13} {:>8.2f} {:>11.0f} {:>9.0f} {:>8.2f} {:>8.2f} {:>8.2f} {:<10} {:>9.0f}  {}",
                       nodes, layout, pr.step_s, pr.tokens_per_s,
                       pr.tokens_per_s / (double(nodes) * w.G), pr.busy.gpu_compute,
                       pr.busy.cpu_update, pr.busy.network, pr.bottleneck,
                       pr.host_bytes / double(1ull << 30), b.policy.label(w.L));
  } catch (const UserError& e) {
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    return fmt::format("{:>5} {:<13} does not fit: {}", nodes, layout, why);
  }
}

/// Whether the planned run's workers are GPUs: --device, "auto" as this machine has them, or
/// the --machine file's.
bool plannedCuda(const Options& o) {
  if (!o.machine.empty()) return !loadMachine(o.machine).cpu_workers;
  if (o.device == "auto") return deviceFingerprint(true) != "device=cuda;gpus=";
  return o.device == "cuda";
}

/// The planned run's workers per node: --gpus, or where it is 0 the machine's: the --machine
/// file's GPUs, else 1 GPU or 2 CPU workers.
int plannedWorkersPerNode(const Options& o) {
  if (o.gpus > 0) return o.gpus;
  if (!o.machine.empty()) return loadMachine(o.machine).gpus;
  return plannedCuda(o) ? 1 : 2;
}

int run(const Options& o) {
  if (o.model.empty() == o.model_config.empty())
    throwUserError("give exactly one of --model (a Hugging Face directory) and --model-config (a config.json)");
  const bool cuda = plannedCuda(o);
  PlanRequest r;
  r.model_path = o.model.empty() ? o.model_config : o.model;
  // a length the model cannot run (the run refuses it at start-up) is refused before the
  // calibration's half minute or more
  const model::ModelConfig config = model::ModelConfig::load(r.model_path);
  config.checkSequenceLength(o.seq_len);
  r.model_name = r.model_path.substr(r.model_path.find_last_of('/') + 1);
  r.G = plannedWorkersPerNode(o);
  r.global_rows = o.batch_size;
  r.T = o.seq_len;
  r.cuda = cuda;
  r.gpu_budget_gib = o.gpu_budget_gib;
  r.clip = o.max_grad_norm > 0;
  r.split_embedding = o.embedding_update == "split";
  r.gradient_buckets = o.grad_buckets == "split";
  r.host_embedding_lookup = o.embedding_lookup == "host";
  r.bf16_staging = o.grad_dtype == "bf16";
  r.machine_file = o.machine;
  r.calibration_file = o.calibration;
  r.leader_cores = o.leader_cores;
  auto calibrate = [&](const Workload& w) {
    std::fprintf(stderr, "slidedp plan: calibrating this machine for %s, %lld rows x %lld tokens per worker "
                 "(once; cached)...\n", w.model_name.c_str(), (long long)w.rowsPerWorker(), (long long)w.T);
    // the leader's own count measured: the launcher's placement, else the default split
    const int leader = o.leader_cores > 0 ? o.leader_cores
                                          : MachineDescription::defaultLeaderCores(allowedCpus(), w.G);
    const HostRates host = measureHost(size_t{1} << 30, {}, leader);
    const DeviceRates dev = measureDevice(config, w.rowsPerWorker(), w.T, w.cuda, 0, w.cuda ? 3 : 5);
    return calibratedMachine(host, dev, w.cuda, w.G, o.leader_cores, nullptr, reserveShape(w));
  };
  Plan plan = makePlan(r, calibrate, o.recalibrate, /*search=*/false);
  std::string no_fit;
  try {
    SearchOptions so;
    so.gpu_budget_bytes = plan.gpu_budget_bytes;
    so.bf16_staging = r.bf16_staging;
    plan.result = searchPolicies(plan.workload, plan.machine, so);
  } catch (const UserError& e) {
    if (!o.evaluate) throw;
    no_fit = e.what();  // --evaluate still prices the given policy (and says it does not fit)
  }
  // Several nodes: the network of the command line over the machine file's.
  if (o.nodes > 0) plan.machine.network.nodes = o.nodes;
  if (o.network_gbps > 0) plan.machine.network.gbps = o.network_gbps;
  if (o.network_latency_us >= 0) plan.machine.network.latency_s = o.network_latency_us * 1e-6;
  if (plan.machine.network.nodes > 1 && !(plan.machine.network.gbps > 0))
    throwUserError("--nodes {} needs the network's rate: --network-gbps (per node, Gb/s; e.g. 400 "
                   "for one 400G NIC), or a --machine file whose network.gbps gives it",
                   plan.machine.network.nodes);
  plan.machine.validate(plan.machine_from + " with --nodes/--network-gbps/--network-latency-us applied");
  const NodeLayoutKind node_layout = parseNodeLayout(o.node_layout);
  if (!o.nodes_sweep.empty()) {
    if (!(plan.machine.network.gbps > 0))
      throwUserError("--nodes-sweep needs the network's rate: --network-gbps (per node, Gb/s)");
    std::printf("machine: %s (%s); per node %d workers, network %.0f Gb/s per node (x %.2f "
                "efficiency), %.1f us per ring step; %lld rows x %lld tokens per node and step\n",
                plan.machine.name.c_str(), plan.machine_from.c_str(), plan.workload.G,
                plan.machine.network.gbps, plan.machine.network.efficiency,
                plan.machine.network.latency_s * 1e6, (long long)o.batch_size, (long long)o.seq_len);
    std::printf("%5s %-13s %8s %11s %9s %8s %8s %8s %-10s %9s  %s\n", "nodes", "layout", "step_s",
                "tokens/s", "tok/s/GPU", "gpu_s", "update_s", "net_s", "bound", "host_GiB", "best policy");
    for (int n : o.nodes_sweep)
      for (NodeLayoutKind k : n == 1 ? std::vector<NodeLayoutKind>{NodeLayoutKind::kSharded}
                                     : std::vector<NodeLayoutKind>{NodeLayoutKind::kSharded,
                                                                   NodeLayoutKind::kFullySharded,
                                                                   NodeLayoutKind::kReplicated})
        std::printf("%s\n", nodesRow(plan.workload, plan.machine, n, k, o.batch_size,
                                     plan.gpu_budget_bytes, r.bf16_staging).c_str());
    return 0;
  }
  if (plan.machine.network.nodes > 1) {
    if (!(plan.machine.network.gbps > 0))
      throwUserError("--nodes {} needs the network's rate: --network-gbps (per node, Gb/s)",
                     plan.machine.network.nodes);
    plan.workload.nodes = plan.machine.network.nodes;
    plan.workload.node_sharded = shardsState(node_layout);
    plan.workload.copy_sharded = node_layout == NodeLayoutKind::kFullySharded;
    SearchOptions so;
    so.gpu_budget_bytes = plan.gpu_budget_bytes;
    so.bf16_staging = r.bf16_staging;
    no_fit.clear();
    try {
      plan.result = searchPolicies(plan.workload, plan.machine, so);
    } catch (const UserError& e) {
      if (!o.evaluate) throw;
      no_fit = e.what();
    }
  }
  const Workload& w = plan.workload;
  std::printf("machine: %s (%s)\n", plan.machine.name.c_str(), plan.machine_from.c_str());
  if (w.nodes > 1)
    std::printf("nodes: %d, state %s across them, network %.0f Gb/s per node; the batch is split "
                "over %d workers\n", w.nodes, nodeLayoutName(node_layout),
                plan.machine.network.gbps, w.nodes * w.G);
  // the runtime refuses these (settings_checks.cpp): so does the plan (a value that can never
  // run is refused even where the search does not price it)
  if (o.accumulation_steps < 1)
    throwUserError("--gradient-accumulation-steps must be >= 1 (1: one forward + backward per step), got {}",
                   o.accumulation_steps);
  if (o.evaluate) {
    if (o.accumulation_steps > w.fewestRowsPerWorker())
      throwUserError("--gradient-accumulation-steps {} needs at least that many rows on every worker, "
                     "but {} rows over {} worker(s) give some only {}.\nHINT: --gradient-accumulation-steps "
                     "{} or fewer", o.accumulation_steps, w.global_rows, int64_t{w.G} * w.nodes,
                     w.fewestRowsPerWorker(), std::max<int64_t>(1, w.fewestRowsPerWorker()));
    Policy p;
    p.delivery = parseDeliveryRoute(o.delivery);
    p.reduction = parseReductionRoute(o.reduction);
    p.chunk_numel = o.chunk_numel;
    p.ring_slots = o.ring_slots;
    p.window = o.window;
    p.micro_batch_rows = o.micro_batch_rows;
    p.accumulation_steps = o.accumulation_steps;
    p.offload = o.offload;
    p.tail_units = o.tail_units;
    p.bf16_staging = r.bf16_staging;
    p.leader_threads = o.leader_threads > 0 ? o.leader_threads : plan.machine.leaderCores(w.G);
    const ActivationPolicy a = parseActivationPolicy(o.activations);
    int kept = a == ActivationPolicy::kRecompute || a == ActivationPolicy::kAttentionOutput ? 0 : static_cast<int>(w.L);
    if (a == ActivationPolicy::kAttentionOutput) p.attention_output_layers = static_cast<int>(w.L);
    if (a == ActivationPolicy::kAuto) {
      const LayerSplit s = autoLayerSplit(w, plan.machine, p, plan.gpu_budget_bytes, o.max_kept_layers);
      kept = std::max(0, s.kept);
      p.attention_output_layers = s.attention_output;
    }
    if (o.max_kept_layers >= 0) kept = std::min(kept, o.max_kept_layers);
    p.kept_layers = kept;
    // the runtime's input placement (worker/input_placement.h): recomputed layers' inputs the
    // GPU cannot hold go to pinned host memory, the first layers' first
    if (!p.offload && a != ActivationPolicy::kKeep && a != ActivationPolicy::kAttentionOutput)
      p.offloaded_layers = std::max(0, inputPlacementOffloads(w, plan.machine, p, plan.gpu_budget_bytes));
    const Prediction pr = predict(w, plan.machine, p, plan.gpu_budget_bytes);
    const std::vector<LayerActivation> layers = p.layers(w.L);
    const int offloaded = static_cast<int>(std::count(layers.begin(), layers.end(), LayerActivation::kOffload));
    int rank = 1;
    for (const auto& x : plan.result.ranked) rank += x.prediction.step_s < pr.step_s;
    std::printf("     %s\n     %s\n", tableHeader().c_str(), formatRow(p.label(w.L), pr).c_str());
    std::printf("PREDICTION step_s=%.6f tokens_per_s=%.1f bottleneck=%s kept=%d gpu_gib=%.2f fits=%d "
                "rank=%d/%zu best_s=%.6f offloaded=%d update_s=%.6f\n", pr.step_s, pr.tokens_per_s,
                pr.bottleneck.c_str(), kept, pr.gpu_peak_bytes / double(1ull << 30),
                pr.fits_gpu && pr.fits_host ? 1 : 0, rank, plan.result.ranked.size() + 1,
                plan.result.ranked.empty() ? 0.0 : plan.result.ranked.front().prediction.step_s, offloaded,
                pr.busy.cpu_update);
    if (!no_fit.empty()) std::printf("note: %s\n", no_fit.c_str());
    if (p.tail_units > 0 && !earlyAgreement(w, p))
      std::printf("note: tail%d only orders the hand-offs here (the next forward starts beside the "
                  "tail's update with the cpu reduction route, one accumulation step, no clipping "
                  "and one node), as in the runtime\n", p.tail_units);
  } else {
    std::printf("%s", formatPlan(w, plan.machine, plan.result, plan.gpu_budget_bytes, o.top).c_str());
  }
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    if (!f) throwUserError("cannot write --json {}", o.json);
    nlohmann::json j = planJson(w, plan.machine, plan.result, o.top);
    j["machine_description"] = toJson(plan.machine);
    f << j.dump(2) << "\n";
  }
  return 0;
}

/// Declares on `app`, unbound, every option of a run (slidedp_worker) that `app` lacks, so the
/// run's arguments parse while an unknown flag is still an error. Returns every long name
/// either of them knows (for the suggestion of a misspelt flag).
std::vector<std::string> acceptRunOptions(CLI::App& app) {
  CLI::App run_app;
  static WorkerOptions sink;  // the run's values are parsed into nothing the plan reads
  addWorkerOptions(run_app, sink);
  std::vector<std::string> names = longFlagNames(app);
  // An empty group name keeps them out of --help, which lists what the plan reads.
  CLI::Option_group* pass = app.add_option_group("");
  for (const CLI::Option* o : allOptions(run_app))
    for (const std::string& n : o->get_lnames()) {
      const std::string flag = "--" + n;
      if (std::find(names.begin(), names.end(), flag) != names.end()) continue;
      if (o->get_expected_max() == 0) pass->add_flag(flag);  // a flag takes no value
      else pass->add_option(flag);
      names.push_back(flag);
    }
  return names;
}

/// The run's own refusals (slidedp_worker's value checks and checkSettings: --lr -1, --steps 0,
/// --warmup beyond the run, a bad --route-sweep, ...; then checkRunAtSite and checkDataInputs:
/// GPU-only flags on CPU workers, a tail beyond the model's layers, a data file that does not
/// exist, ...) on the arguments the plan was given, so that a run the workers would refuse
/// after the plan is refused before its calibration. `site.num_workers`: the run's workers (0:
/// unknown, the checks that need the count are skipped). Parses argv again into a full
/// WorkerOptions (the plan's own parse keeps only what it reads), the --config file included;
/// the plan's own flags are extras there. `data_here`: the run's data files are on this machine
/// (not with --machine, a plan for another one: then only those found here are checked). Returns the run's options as the worker reads them
/// (the defaults without --model/--model-config, which the plan refuses itself). Throws
/// UserError (a bad value included) with the worker's message.
TrainJobOptions checkRunSettings(int argc, char** argv, const RunSite& site, bool data_here) {
  CLI::App run_app;
  WorkerOptions w;
  addWorkerOptions(run_app, w);
  run_app.set_config("--config", "");
  run_app.allow_extras();
  run_app.allow_config_extras(CLI::config_extras_mode::ignore);
  try {
    run_app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throwUserError("{}\nHINT: slidedp_worker --help lists the run's options with their ranges",
                   explainRepeatedOption(e.what(), std::vector<std::string>(argv + 1, argv + argc)));
  }
  if (!w.training()) return w.train;  // no model: the plan refuses that itself
  TrainJobOptions& t = w.train;
  t.trace_step_given = run_app.count("--trace-step") > 0;
  t.batch_size_given = run_app.count("--batch-size") > 0;
  t.seq_len_given = run_app.count("--seq-len") > 0;
  resolveTrainOptions(t);  // the names the run parses at start-up, each refused with its choices
  checkSettings(t, site.num_workers);
  const model::ModelConfig cfg = model::ModelConfig::load(t.model.empty() ? t.model_config : t.model);
  checkRunAtSite(t, site, cfg);
  // with --machine the data may live on that machine only: checked where it is here
  const std::string ref = "reference:";
  if (data_here || formats::pathExists(t.data.rfind(ref, 0) == 0 ? t.data.substr(ref.size()) : t.data))
    checkDataInputs(t, site, cfg);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"slidedp plan: the step-time model's ranked policies for a run (same arguments as a "
               "run: the other flags of slidedp_worker --help are accepted and not used)"};
  Options o;
  app.add_option("--model", o.model, "Hugging Face model directory");
  app.add_option("--model-config", o.model_config, "config.json of the model");
  app.add_option("--batch-size", o.batch_size, "Global batch, rows per step")->capture_default_str();
  app.add_option("--seq-len", o.seq_len, "Tokens per row T")->capture_default_str();
  // A GiB or rate: a finite number >= 0 (CLI::NonNegativeNumber lets nan through).
  const CLI::Validator kFiniteNonNegative(
      [](std::string& v) {
        try {
          const double x = std::stod(v);
          if (std::isfinite(x) && x >= 0) return std::string();
        } catch (const std::exception&) {
        }
        return "must be a finite number >= 0, got " + v;
      },
      "NUMBER >= 0");
  app.add_option("--gpus", o.gpus, "Workers per node (GPUs, or CPU workers); 0: the machine's (the --machine file's GPUs; without it 1 GPU, or 2 CPU workers)")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--device", o.device, "auto, cuda or cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  app.add_option("--gpu-memory-budget", o.gpu_budget_gib, "GiB per GPU (0: memory - 3)")->check(kFiniteNonNegative)->capture_default_str();
  app.add_option("--max-grad-norm", o.max_grad_norm, "> 0: exact clipping (its barrier is priced)")->check(kFiniteNonNegative)->capture_default_str();
  app.add_option("--embedding-update", o.embedding_update, "split or dense (the embedding's update "
                 "schedule; split prices the token rows only at the end of the step)")
      ->check(CLI::IsMember({"split", "dense"}))->capture_default_str();
  app.add_option("--embedding-lookup", o.embedding_lookup, "host or window (where a GPU's forward "
                 "lookup of a tied embedding reads its rows: host memory, or the GPU copy)")
      ->check(CLI::IsMember({"host", "window"}))->capture_default_str();
  app.add_option("--grad-buckets", o.grad_buckets, "split or whole (a decoder layer's MLP gradient "
                 "handed off before its attention's backward, on the cpu route, or after the layer)")
      ->check(CLI::IsMember({"split", "whole"}))->capture_default_str();
  app.add_option("--grad-dtype", o.grad_dtype, "f32 or bf16 staging")->check(CLI::IsMember({"f32", "bf16"}))->capture_default_str();
  app.add_option("--machine", o.machine, "Predict for this machine description (tools/machines/*.json) instead of calibrating here");
  app.add_option("--calibration", o.calibration, "Calibration cache file (default $SLIDEDP_CALIBRATION or ~/.cache/slidedp/calibration.json)");
  app.add_flag("--recalibrate", o.recalibrate, "Measure this machine again, replacing its cached entry");
  app.add_option("--top", o.top, "Policies printed (>= 1)")->check(CLI::Range(1, 1 << 30))->capture_default_str();
  app.add_option("--json", o.json, "Also write the plan as JSON");
  app.add_option("--leader-cores", o.leader_cores, "The leader's cores (the launcher passes its placement)")->check(CLI::Range(0, 1 << 20));
  app.add_flag("--evaluate", o.evaluate, "Price the run's own flags (--delivery ... --activations) instead of searching");
  app.add_option("--delivery", o.delivery, "(--evaluate) replicated or sharded");
  app.add_option("--reduction", o.reduction, "(--evaluate) cpu or gpu");
  app.add_option("--chunk-numel", o.chunk_numel, "(--evaluate) elements per gradient chunk");
  app.add_option("--ring-slots", o.ring_slots, "(--evaluate) staging ring depth");
  app.add_option("--window", o.window, "(--evaluate) GPU window depth K");
  app.add_option("--micro-batch-rows", o.micro_batch_rows, "(--evaluate) rows per micro-batch")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  app.add_option("--gradient-accumulation-steps", o.accumulation_steps,
                 "(--evaluate) forward + backward passes per step, the model delivered for each");
  app.add_option("--activations", o.activations, "(--evaluate) recompute, keep, attention-output or auto");
  app.add_option("--max-kept-layers", o.max_kept_layers, "(--evaluate) cap on kept layers (-1: none)")->check(CLI::Range(-1, 1 << 30));
  app.add_flag("--offload-activations", o.offload, "(--evaluate) recomputed layers' inputs on the host");
  app.add_option("--leader-threads", o.leader_threads, "(--evaluate) AdamW threads (0: the leader's cores)")->check(CLI::Range(0, 1 << 20));
  app.add_option("--update-tail-units", o.tail_units, "(--evaluate) layers 1..M updated beside the next forward");
  app.add_option("--nodes", o.nodes, "Nodes (each 1 leader + --gpus workers); 0: the machine file's network.nodes")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--network-gbps", o.network_gbps, "Network rate per node, Gb/s (e.g. 400 for one 400G NIC)")->check(kFiniteNonNegative);
  app.add_option("--network-latency-us", o.network_latency_us, "Latency per ring step, microseconds (default 5)")->check(kFiniteNonNegative);
  app.add_option("--node-layout", o.node_layout, "sharded, fully-sharded or replicated across nodes")->capture_default_str();
  app.add_option("--nodes-sweep", o.nodes_sweep, "Print the best policy for each of these node counts "
                 "(e.g. 1,2,4,8,16,32,64), every layout (sharded, fully-sharded, replicated); --batch-size is then rows per node")->delimiter(',');
  app.set_config("--config", "", "A run's TOML config file (keys as the flags)");
  app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key of --config too
  const std::vector<std::string> known = acceptRunOptions(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // Neither the plan's flag nor a run's: a typo would otherwise be priced as the default.
    std::vector<std::string> unknown;
    for (const std::string& a : app.remaining())
      if (a.size() > 1 && a[0] == '-') unknown.push_back(a.substr(0, a.find('=')));
    if (unknown.empty()) unknown = app.remaining();
    for (const std::string& u : unknown)
      std::fprintf(stderr, "slidedp plan: error: unknown option %s%s\n", u.c_str(),
                   didYouMean(closestName(u, known)).c_str());
    std::fprintf(stderr, "HINT: slidedp_plan --help lists the plan's options; a run's flags "
                 "(slidedp_worker --help) are accepted too\n");
    return 2;
  } catch (const CLI::ConfigError& e) {
    // a file-level cause (JSON, a byte-order mark) explains the unknown key it led to
    if (const std::string why = configFileProblem(app.get_option("--config")->as<std::string>()); !why.empty()) {
      std::fprintf(stderr, "slidedp plan: error: %s\n", why.c_str());
      return 2;
    }
    const std::string msg = explainRepeatedOption(
        explainConfigError(e.what(), app.get_option("--config")->as<std::string>(), known),
        std::vector<std::string>(argv + 1, argv + argc));
    std::fprintf(stderr, "slidedp plan: error: %s\nHINT: the keys are the flags' names without --\n",
                 msg.c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // a bad value: exit 2 as every other refusal here (CLI11's own codes are 100+)
    const std::string msg = explainRepeatedOption(e.what(), std::vector<std::string>(argv + 1, argv + argc));
    std::fprintf(stderr, "slidedp plan: error: %s\nHINT: slidedp_plan --help lists the plan's options "
                 "with their ranges\n", msg.c_str());
    return 2;
  }
  if (const std::string config = app.get_option("--config")->as<std::string>(); !config.empty())
    if (const std::string why = configFileProblem(config); !why.empty()) {
      std::fprintf(stderr, "slidedp plan: error: %s\n", why.c_str());
      return 2;
    }
  if (!o.evaluate) {
    // A run's knob flags passed through: the search ranks every value itself (they would
    // otherwise be ignored without a word).
    const std::vector<std::string> knobs = policyKnobsGiven(app);
    std::string names;
    for (const auto& k : knobs) names += (names.empty() ? "" : ", ") + k;
    if (!knobs.empty())
      std::fprintf(stderr, "slidedp plan: note: %s given: the search chooses %s itself; --evaluate "
                   "prices the run's own values instead\n", names.c_str(),
                   knobs.size() > 1 ? "these knobs" : "this knob");
  }
  try {
    // the workers' count where the plan is told it (a --nodes-sweep's batch is per node)
    // --nodes 0: the machine file's network.nodes, as run() takes it
    const int nodes = !o.nodes_sweep.empty() ? 1
                      : o.nodes > 0          ? o.nodes
                      : o.machine.empty()    ? 1
                                             : std::max(loadMachine(o.machine).network.nodes, 1);
    RunSite site{plannedCuda(o), o.nodes_sweep.empty() ? plannedWorkersPerNode(o) * nodes : 0, nodes, {}};
    // GPU-only flags on a machine without GPUs (a login node) under --device auto: the plan
    // for a GPU machine is made with its description, not --device cuda (which would calibrate
    // GPUs this machine lacks)
    if (!site.cuda && o.device == "auto" && o.machine.empty())
      site.gpu_only_note = "\nHINT: this machine has no GPU, so the plan is for its CPU workers; plan a GPU "
                           "machine from here with its description: --machine FILE (e.g. "
                           "tools/machines/h200x8.json)";
    const TrainJobOptions t = checkRunSettings(argc, argv, site, o.machine.empty());
    // reference: data runs its stored rows x tokens (checkReferenceData refused other given ones)
    if (const std::string ref = "reference:";
        t.data.rfind(ref, 0) == 0 && formats::isRegularFile(t.data.substr(ref.size()))) {
      const GlobalBatch b = data::ReferenceBatches(t.data.substr(ref.size())).batch(1);
      if (!t.batch_size_given) o.batch_size = b.B;
      if (!t.seq_len_given) o.seq_len = b.T;
    }
    return run(o);
  } catch (const UserError& e) {
    std::fflush(stdout);  // what was printed comes first where both go to one file
    std::fprintf(stderr, "slidedp plan: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    // LibTorch's errors (c10::Error: the calibration's layer at the run's shape, e.g. more
    // memory than the machine has) carry a backtrace after their first line.
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    std::fprintf(stderr, "slidedp plan: error: measuring this machine at the run's shape (%lld "
                 "rows x %lld tokens) failed: %s\nHINT: calibration runs the model's layer at that "
                 "shape here; plan a smaller --batch-size/--seq-len, or predict without measuring "
                 "with --machine tools/machines/<machine>.json\n",
                 static_cast<long long>(o.batch_size), static_cast<long long>(o.seq_len), what.c_str());
    return 2;
  }
}
