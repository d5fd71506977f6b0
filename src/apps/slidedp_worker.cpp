// slidedp_worker: the one program of a slidedp job, started as `mpirun -np 1+G slidedp_worker`
// (usually through launcher/slidedp-run). Node-local rank 0 becomes the host leader, ranks
// 1..G the workers. At this stage of the project it brings the job up end to end: roles and
// communicators, the node's shared segment (host state + control block), DMA registration
// and NCCL on GPU workers, a verified staging-ring hand-off between leader and workers, and
// the job-wide failure handling; then it tears everything down and exits 0.
//
// defines: main()
#include <mpi.h>                      // defines: MPI_Init_thread, MPI_Finalize
#include <unistd.h>

#include <CLI/CLI.hpp>                // defines: the command line
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "apps/command_line.h"        // defines: flagCount (a flag on the command line)
#include "apps/config_file_checks.h"  // defines: configFileProblem
#include "common/errors.h"            // defines: UserError, MPI_CHECK
#include "common/log.h"               // defines: setLogIdentity, SLIDEDP_LOG_*
#include "apps/option_suggest.h"       // defines: explainConfigError (a misspelt --config key)
#include "apps/policy_choice.h"        // defines: policyKnobsGiven (whether --policy auto applies)
#include "apps/worker_options.h"       // defines: WorkerOptions, addWorkerOptions (the command line)
#include "runtime/host_state_layout.h"  // defines: ModelShape, HostStateLayout (regions)
#ifdef SLIDEDP_WITH_TRAINING
#include "apps/train_job.h"           // defines: TrainJobOptions, runTrainJob (the training job)
#include "apps/run_variants.h"        // defines: lastStep (the job's last step, for --kill-at)
#include "apps/resume_config.h"       // defines: savedConfigForResume (--resume DIR alone)
#endif
#include "runtime/fault_injection.h"  // defines: armKillPoint (--kill-at)
#include "runtime/job_guard.h"        // defines: JobGuard (watchdog, signals, failJob)
#include "runtime/rank_context.h"     // defines: RankContext, makeRankContext, topologyTable,
                                      //   noteLaunchEnvironment
#include "runtime/staging_handoff.h"  // defines: runStagingHandoff (hot-path self-check)
#include "shm/segment.h"              // defines: Segment (create / open / remove)
#ifdef SLIDEDP_WITH_CUDA
#include <cuda_runtime_api.h>
#include "cuda/checks.h"              // defines: CUDA_CHECK
#include "cuda/device.h"              // defines: visibleDeviceCount, HostRegistration, NcclCommunicator
#endif

using namespace slidedp;

namespace {


int worldRankFromEnv() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

uint64_t makeJobId(MPI_Comm world) {
  uint64_t id = 0;
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank == 0) {
    std::random_device rd;
    id = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid());
  }
  MPI_CHECK(MPI_Bcast(&id, 1, MPI_UINT64_T, 0, world));
  return id;
}

DeviceKind resolveDevice(const std::string& want, int* visible_gpus) {
  *visible_gpus = 0;
#ifdef SLIDEDP_WITH_CUDA
  std::string why;
  *visible_gpus = cuda::visibleDeviceCount(&why);
  if (want == "cuda" && *visible_gpus == 0)
    throwUserError("--device cuda, but no GPU is visible ({}).\nHINT: check nvidia-smi and "
                   "CUDA_VISIBLE_DEVICES, or run CPU workers (launcher/slidedp-run "
                   "--cpu-workers N; under mpirun directly: --device cpu)", why);
  if (want == "cuda" || (want == "auto" && *visible_gpus > 0)) return DeviceKind::kCuda;
#else
  if (want == "cuda")
    throwUserError("--device cuda, but this slidedp_worker was built without CUDA.\nHINT: "
                   "install the CUDA toolkit and rebuild (tools/setup.sh), or use --device cpu");
#endif
  return DeviceKind::kCpu;
}

void holdFor(double seconds) {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  while (std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}


int runJob(const WorkerOptions& o, RankContext& ctx, shm::Segment& seg, JobGuard& guard) {
  int visible_gpus = 0;
  DeviceKind device = DeviceKind::kCpu;
  std::string device_error;
  try {
    device = resolveDevice(o.device, &visible_gpus);
  } catch (const UserError& e) {
    device_error = e.what();
  }
  agreeOrThrow(MPI_COMM_WORLD, device_error.empty(), device_error);
  RankOptions ropts;
  ropts.virtual_node_size = o.virtual_node_size;
  ropts.device = device;
  ropts.visible_gpus = visible_gpus;
  ctx = makeRankContext(ropts);
  setLogIdentity(fmt::format("{} {}/{}", roleName(ctx.role), ctx.world_rank, ctx.world_size),
                 ctx.world_rank == 0 || o.log_all_ranks ? spdlog::level::info : spdlog::level::warn);
  if (!o.pid_file.empty()) {
    if (FILE* f = std::fopen(o.pid_file.c_str(), "a")) {
      std::fprintf(f, "%d %d\n", ctx.world_rank, getpid());
      std::fclose(f);
    }
  }
  const std::string topo = topologyTable(ctx);
  SLIDEDP_LOG_INFO("{} node(s), {} worker(s) on {} device(s)\n{}", ctx.num_nodes,
                   ctx.num_workers, deviceName(device), topo);

#ifdef SLIDEDP_WITH_TRAINING
  if (o.training()) {
    std::string kill_error;
    try {
      KillPointRun run;
      const auto& j = o.train;
      run.last_step = lastStep(j);  // a malformed --route-sweep is refused here already
      run.checkpoints = !j.checkpoint_dir.empty();
      run.checkpoint_every = j.checkpoint_every;
      run.checkpoint_at_end = j.checkpoint_at_end;
      run.exports = !j.export_dir.empty();
      armKillPoint(o.kill_at, ctx.world_rank, ctx.world_size, ctx.isLeader(), run);
    } catch (const UserError& e) {
      kill_error = e.what();
    }
    agreeOrThrow(ctx.world, kill_error.empty(), kill_error);
    TrainJobOptions t = o.train;
    if (t.shm_name.empty()) t.shm_name = o.shm_name;
    t.train.wait_timeout_s = o.wait_timeout_s;
    t.heartbeat_timeout_s = o.heartbeat_timeout_s;
    t.stall_timeout_s = o.stall_timeout_s;
    t.train.chunk_numel = static_cast<int64_t>(o.chunk_numel);
    t.train.ring_slots = o.ring_slots;
    t.train.bf16_staging = o.grad_dtype == "bf16";
    return runTrainJob(ctx, t);
  }
#endif
  // ---- the node's segment --------------------------------------------------------------
  const uint64_t job_id = makeJobId(ctx.world);
  HostStateSpec spec;
  spec.model = o.shape;
  spec.num_workers = ctx.local_size - 1;
  spec.num_slots = o.ring_slots;
  spec.chunk_numel = o.chunk_numel;
  spec.grad_dtype = o.grad_dtype == "bf16" ? shm::DType::kBF16 : shm::DType::kF32;
  spec.extra_bytes = o.extra_state_bytes;
  const HostStateLayout state = HostStateLayout::build(spec);
  std::string name = o.shm_name.empty()
                         ? fmt::format("slidedp-u{}-{:012x}-n{}", getuid(),
                                       job_id & 0xffffffffffffull, ctx.node_id)
                         : (ctx.num_nodes > 1 ? fmt::format("{}-n{}", o.shm_name, ctx.node_id)
                                              : o.shm_name);
  const shm::ControlDims dims{static_cast<uint32_t>(ctx.local_size),
                              static_cast<uint32_t>(state.units.size()),
                              static_cast<uint32_t>(spec.num_slots)};
  std::string create_error;
  if (ctx.isLeader()) {
    try {
      seg = shm::Segment::create(name, job_id, state.layout, dims);
      JobGuard::setSegmentName(name);
    } catch (const UserError& e) {
      create_error = fmt::format("leader of node {} ({}): {}", ctx.node_id, ctx.hostname, e.what());
    }
  }
  agreeOrThrow(ctx.world, create_error.empty(), create_error);
  if (!ctx.isLeader()) {
    // The leader created it before the agreement above: the deadline only guards a lost file.
    seg = shm::Segment::open(name, job_id, o.wait_timeout_s > 0 ? o.wait_timeout_s : 60);
    JobGuard::setSegmentName(name);
  }
  guard.start(ctx, seg.control(), WatchdogOptions{0.05, o.heartbeat_timeout_s, o.stall_timeout_s});
  if (ctx.isLeader())
    SLIDEDP_LOG_WARN("node {}: segment /dev/shm/{} ({}, {} params, {} workers, /dev/shm free {})\n{}"
                     "units:\n{}", ctx.node_id, name, shm::formatBytes(seg.bytes()),
                     spec.model.numParams(), spec.num_workers,
                     shm::formatBytes(shm::Segment::shmFreeBytes()), seg.layout().toString(),
                     state.unitsToString());
  MPI_CHECK(MPI_Barrier(ctx.world));

  // ---- worker devices and the worker-to-worker route -------------------------------------
  std::string status;
#ifdef SLIDEDP_WITH_CUDA
  std::optional<cuda::HostRegistration> registration;
  if (!ctx.isLeader() && device == DeviceKind::kCuda) {
    CUDA_CHECK(cudaSetDevice(ctx.gpu));
    registration.emplace(seg.base(), seg.bytes());
    cuda::NcclCommunicator nccl(ctx.workers);
    const double err = cuda::ncclAllReduceCheck(nccl, ctx.worker_rank, ctx.num_workers, 1 << 20);
    if (err != 0) throw std::runtime_error(fmt::format("NCCL all-reduce check off by {}", err));
    status = fmt::format("{}: {}; segment registered for DMA ({}); NCCL all-reduce over {} GPU "
                         "worker(s): ok", ctx.describe(), cuda::describeDevice(ctx.gpu),
                         shm::formatBytes(seg.bytes()), ctx.num_workers);
  }
#endif
  if (!ctx.isLeader() && device == DeviceKind::kCpu) {
    std::vector<float> v(1024, static_cast<float>(ctx.worker_rank + 1));
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), 1024, MPI_FLOAT, MPI_SUM, ctx.workers));
    const float want = ctx.num_workers * (ctx.num_workers + 1) / 2.0f;
    for (float x : v)
      if (x != want) throw std::runtime_error("MPI all-reduce check between CPU workers failed");
    status = fmt::format("{}: segment mapped ({}); MPI all-reduce over {} CPU worker(s): ok",
                         ctx.describe(), shm::formatBytes(seg.bytes()), ctx.num_workers);
  }
  const std::string statuses = gatherLines(ctx, status);
  SLIDEDP_LOG_INFO("workers:\n{}", statuses);

  // ---- hot-path self-check ---------------------------------------------------------------
  const HandoffStats hs =
      runStagingHandoff(ctx, seg, spec, state, o.handoff_rounds, o.wait_timeout_s);
  SLIDEDP_LOG_INFO("staging hand-off: {} chunks x {} elements x {} worker(s) verified in {:.3f} s",
                   hs.rounds, hs.elements_per_chunk, spec.num_workers, hs.seconds);

  if (o.fail_rank == ctx.world_rank) throw std::runtime_error(o.fail_message);
  if (o.hold_s > 0) {
    SLIDEDP_LOG_INFO("holding for {:.1f} s (--hold)", o.hold_s);
    holdFor(o.hold_s);
  }

  // ---- teardown: workers unmap first, then the leader removes the segment ---------------
  MPI_CHECK(MPI_Barrier(ctx.world));
  guard.stop();
  if (!ctx.isLeader()) seg = shm::Segment();
  MPI_CHECK(MPI_Barrier(ctx.node));
  if (ctx.isLeader()) {
    seg = shm::Segment();  // owner: unmaps and removes the name
    JobGuard::setSegmentName("");
  }
  MPI_CHECK(MPI_Barrier(ctx.world));
  SLIDEDP_LOG_INFO("done: all ranks detached, segments removed");
  freeRankContext(ctx);
  return 0;
}

/// Runs the job; any error of this rank other than an agreed configuration error fails the
/// whole job from here, while the segment is still mapped (so node peers see the message).
int run(const WorkerOptions& o) {
  RankContext ctx;
  shm::Segment seg;
  JobGuard guard;
  try {
    return runJob(o, ctx, seg, guard);
  } catch (const AgreedError&) {
    throw;
  } catch (const std::exception& e) {
    JobGuard::failJob(ctx.world_size > 0 ? &ctx : nullptr,
                      seg.base() != nullptr ? &seg.control() : nullptr, e.what(), 1);
  }
}

/// The start-up before MPI_Init (the command line, a resume's saved configuration) may end in
/// a configuration error on some ranks only (a file one node cannot read, a temporary file one
/// rank cannot write): every rank agrees on it right after MPI_Init, the failing ones with
/// `code` 2 and the others with 0, before any other collective (a rank exiting alone left the
/// others in the next collective: a hang). Returns the agreed code; `rank0_failed` tells
/// whether world rank 0 failed (it prints an error that is the same on every rank).
int agreePreMpiOutcome(int code, bool* rank0_failed = nullptr) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int mine[2] = {code, rank == 0 ? code : 0};
  int all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank0_failed != nullptr) *rank0_failed = all[1] != 0;
  return all[0];
}

/// Ends a rank after a configuration error every rank agreed on (the start-up before MPI_Init,
/// or an AgreedError of the job), once its message is printed: one barrier once every message is
/// out (mpirun kills the other ranks at the first non-zero exit: a fast worker exiting first
/// made the message go missing, seen in CI), then status 2 (JobGuard::agreedExitStatus).
int exitAfterAgreedError() {
  std::fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Finalize();
  return JobGuard::agreedExitStatus(2, rank);
}

/// A configuration error found before MPI_Init (`text`, without "slidedp: error: "): every rank
/// agrees on the start-up right after MPI_Init, then ends with status 2. World rank 0 prints it
/// (the command line's errors are the same on every rank); another rank prints it, naming
/// itself, when rank 0 did not fail (a hand-written mpirun line that gives it other flags) or
/// when the error is its own (`local`: a file only it cannot write).
int exitOnPreMpiError(const std::string& text, bool local = false) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  bool rank0_failed = false;
  agreePreMpiOutcome(2, &rank0_failed);
  const int rank = worldRankFromEnv();
  if (rank == 0 || local || !rank0_failed)
    std::fprintf(stderr, "slidedp: error: %s%s\n", rank == 0 ? "" : fmt::format("rank {}: ", rank).c_str(),
                 text.c_str());
  return exitAfterAgreedError();
}

/// Command-line errors: --help and friends as CLI11 prints them; anything else as one line
/// from rank 0 naming the option, with exit status 2 like every other configuration error.
int reportParseError(const CLI::App& app, const CLI::ParseError& e,
                     const std::vector<std::string>& args, bool config_written_by_cli11 = false) {
  if (e.get_exit_code() == 0) return worldRankFromEnv() == 0 ? app.exit(e) : 0;  // --help
  std::string msg = e.what();
  if (dynamic_cast<const CLI::ConfigError*>(&e) != nullptr) {
    const std::string config = app.get_option("--config")->as<std::string>();
    // a file-level cause (JSON, a byte-order mark) explains the unknown key it led to
    if (const std::string why = configFileProblem(config, config_written_by_cli11); !why.empty())
      return exitOnPreMpiError(why);
    msg = explainConfigError(msg, config, longFlagNames(app));
  }
  msg = explainRepeatedOption(msg, args);  // an option given twice, or a --config list
  // A bare word that is a file: a configuration file given where a flag was expected (e.g. after
  // launcher/slidedp-run's --, which passes the rest to this program as it is).
  std::string hint = "slidedp_worker --help lists every option with its default";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // An unknown --flag: one of launcher/slidedp-run's own (given after its --), or the
    // closest of this program's. CLI11's message lists the extras, values first.
    static const char* const kLauncherFlags[] = {"--cpu-workers", "--dry-run", "--exec-rank", "--gpus",
                                                 "--hostfile", "--no-pin", "--nodes", "--plan",
                                                 "--srun", "--worker-threads"};
    const std::vector<std::string> known = longFlagNames(app);
    for (const std::string& a : args) {
      if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
      const std::string name = a.substr(0, a.find('='));
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      if (std::find(std::begin(kLauncherFlags), std::end(kLauncherFlags), name) != std::end(kLauncherFlags)) {
        msg = fmt::format("{} is an option of launcher/slidedp-run, not of slidedp_worker", name);
        hint = fmt::format("put it before --: launcher/slidedp-run {} ... -- [worker flags]", name);
      } else {
        msg = fmt::format("unknown option {}{}", name, didYouMean(closestName(name, known)));
      }
      break;
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
    for (const std::string& a : args)
      if (std::error_code ec; !a.empty() && a[0] != '-' && std::filesystem::is_regular_file(a, ec) &&
          msg.find(a) != std::string::npos) {
        hint = fmt::format("{} is a file: a configuration file is given as --config {} (or to "
                           "launcher/slidedp-run before --: slidedp-run [options] {} [-- flags])",
                           a, a, a);
        break;
      }
  return exitOnPreMpiError(fmt::format("{}\nHINT: {}", msg, hint));
}

}  // namespace

int main(int argc, char** argv) {
  // First: a stop request (SIGUSR1) or SIGTERM that comes during start-up is handled, never
  // the default action (SIGUSR1's kills the rank with status 138).
  JobGuard::installSignalHandlers();
  CLI::App app{"slidedp_worker: one rank of a slidedp job (node-local rank 0 = host leader, "
               "1..G = workers). Start it with mpirun -np 1+G, or launcher/slidedp-run."};
  WorkerOptions opts;
  addWorkerOptions(app, opts);
  app.set_config("--config", "", "Read options from this TOML/INI file (key = value per option, "
                 "names as on the command line without --); command-line flags override it");
  app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key is refused, named
  std::vector<std::string> line_args(argv + 1, argv + argc);
  std::vector<char*> parse_argv(argv, argv + argc);
  std::string saved_config;  // the --config file a --resume alone wrote from the checkpoint ("" = none)
#ifdef SLIDEDP_WITH_TRAINING
  // An empty --resume on the command line (a script's unset variable, `--resume "$CKPT"`) would
  // start a fresh run, or the self-check, where a continuation was meant: refused.
  // (`--resume` as the last word has no value at all: CLI11 says so.)
  if (bool given = false; flagValue(line_args, "--resume", &given).empty() && given &&
                          line_args.back() != "--resume")
    return exitOnPreMpiError("--resume was given an empty value (an unset shell variable?), which "
                             "would start from scratch.\nHINT: pass a checkpoint directory, one of "
                             "its step-* directories or auto; to start a fresh run, drop --resume");
  // `--resume DIR` without the run's flags: the configuration saved with the checkpoint is read
  // as the run's --config (the command line overrides it).
  ResumeConfig saved;
  try {
    saved = savedConfigForResume(line_args, app);
  } catch (const ResumeConfigError& e) {
    // Said by rank 0 when it failed too (the same error on every rank), else by each failing
    // rank (its own temporary file, or a checkpoint its node sees differently), with its rank.
    return exitOnPreMpiError(e.what(), e.local);
  }
  std::string config_flag = "--config";
  if (!saved.file.empty()) {
    saved_config = saved.file;
    parse_argv.insert(parse_argv.begin() + 1, {config_flag.data(), saved.file.data()});
    if (worldRankFromEnv() == 0) {
      std::fprintf(stderr, "slidedp: --resume without the run's flags: continuing with the "
                   "configuration saved in %s (flags on the command line override it)\n",
                   saved.state_file.c_str());
      if (!saved.moved_paths.empty()) {
        std::string names;
        for (const std::string& n : saved.moved_paths) names += (names.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "slidedp: its relative paths (%s) are taken from %s, where the run "
                     "started\n", names.c_str(), saved.run_dir.c_str());
      }
      if (!saved.saved_checkpoint_dir.empty())
        std::fprintf(stderr, "slidedp: the checkpoint resumed lies outside the run's --checkpoint-dir %s "
                     "(a copy?): this run checkpoints in %s, leaving %s as it is (give --checkpoint-dir "
                     "to choose)\n", saved.saved_checkpoint_dir.c_str(), saved.checkpoint_dir.c_str(),
                     saved.saved_checkpoint_dir.c_str());
    }
  }
  // Read by the parse alone: removed right after it, whatever follows (an abort included).
  struct RemoveAfterParse {
    std::string path;
    void now() {
      if (!path.empty()) ::unlink(path.c_str());
      path.clear();
    }
    ~RemoveAfterParse() { now(); }
  } remove_saved{saved.file};
#endif
  try {
    app.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
  } catch (const CLI::ParseError& e) {
#ifdef SLIDEDP_WITH_TRAINING
    if (!saved.file.empty() && worldRankFromEnv() == 0 && e.get_exit_code() != 0)
      std::fprintf(stderr, "slidedp: note: --config %s below is the configuration saved in %s "
                   "(--resume without the run's flags); if a newer slidedp refuses one of its keys, "
                   "give the run's command with --resume added instead\n", saved.file.c_str(),
                   saved.state_file.c_str());
#endif
    return reportParseError(app, e, line_args, /*config_written_by_cli11=*/!saved_config.empty());
  }
  if (const std::string config = app.get_option("--config")->as<std::string>(); !config.empty())
    if (const std::string why = configFileProblem(config, config == saved_config); !why.empty()) {
      std::string text = why;
#ifdef SLIDEDP_WITH_TRAINING
      if (!saved.file.empty())
        text += fmt::format("\nslidedp: note: that --config is the configuration saved in {} "
                            "(--resume without the run's flags); give the run's command with "
                            "--resume added instead", saved.state_file);
#endif
      return exitOnPreMpiError(text);
    }
#ifdef SLIDEDP_WITH_TRAINING
  remove_saved.now();
#endif
#ifdef SLIDEDP_WITH_TRAINING
  const char* kShapeFlags[] = {"--layers", "--hidden", "--intermediate", "--heads", "--kv-heads",
                               "--head-dim", "--vocab"};
  opts.train.batch_size_given = app.count("--batch-size") > 0;
  opts.train.data_given = app.count("--data") > 0;
  opts.train.config_file = app.get_option("--config")->as<std::string>();
  opts.train.trace_step_given = app.count("--trace-step") > 0;
  opts.train.seq_len_given = app.count("--seq-len") > 0;
  opts.train.policy_given = app.count("--policy") > 0;
  opts.train.policy_knobs_given = policyKnobsGiven(app);
  // A defaulted --policy stays out of the resolved configuration: fed back (a --config of the
  // saved one) it would be an explicit --policy auto, which plans on CPU workers too, where the
  // default ran the flags as given.
  if (!opts.train.policy_given) app.get_option("--policy")->configurable(false);
  if (!opts.training()) {
    // Without --model/--model-config the job is the start-up self-check, which reads none of
    // the training options: a run that sets one on its command line meant to train (e.g.
    // `--resume DIR` alone, which does not bring back the run's other flags) is refused, not
    // run as the self-check with exit 0. A --config file's keys are let through (a saved
    // configuration lists every key, flags included), as is a value equal to the default.
    const auto onLine = [&](const CLI::Option* opt) {
      for (const std::string& n : opt->get_lnames())
        if (flagCount(line_args, "--" + n) > 0) return true;
      return false;
    };
    std::vector<std::string> given;
    const auto joined = [](const std::vector<std::string>& v) {
      std::string out;
      for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
      return out;
    };
    for (const CLI::Option* opt : app.get_option_group("Training")->get_options())
      if (opt->count() > 0 && onLine(opt) &&
          (opt->get_expected_min() < 1 || opt->as<std::string>() != opt->get_default_str()))
        given.push_back(opt->get_name());
    if (!given.empty()) {
      return exitOnPreMpiError(fmt::format(
          "{} train{} a model, but neither --model nor --model-config was given (without one the "
          "job is the start-up self-check, which would ignore {}).\nHINT: add --model DIR (a "
          "Hugging Face model directory) or --model-config FILE (its config.json, random init); "
          "to resume a run: --resume DIR alone (its flags come from the checkpoint)",
          joined(given), given.size() == 1 ? "s" : "", given.size() == 1 ? "it" : "them"));
    }
  }
  if (opts.training()) {
    // The model's config.json gives the shape: the self-check's shape flags are refused, and
    // left out of the resolved configuration (which would show the self-check's default).
    // A value equal to the default is let through: configurations saved before held them.
    for (const char* f : kShapeFlags) {
      const CLI::Option* opt = app.get_option(f);
      if (opt->count() > 0 && opt->as<std::string>() != opt->get_default_str()) {
        return exitOnPreMpiError(fmt::format("{} sizes the start-up self-check (no --model); with "
                                             "--model/--model-config the shape comes from the "
                                             "model's config.json.\nHINT: drop {}", f, f));
      }
      app.get_option(f)->configurable(false);
    }
    // The self-check's test hooks do nothing in a training job: refused, not ignored, and left
    // out of the resolved configuration. An empty or default value passes: configurations
    // saved before listed them (`fail-rank=""`).
    const WorkerOptions d;
    const std::pair<const char*, bool> hooks[] = {
        {"--fail-rank", opts.fail_rank != d.fail_rank},
        {"--hold", opts.hold_s != d.hold_s},
        {"--extra-state-bytes", opts.extra_state_bytes != d.extra_state_bytes},
        {"--handoff-rounds", opts.handoff_rounds != d.handoff_rounds},
        {"--fail-message", opts.fail_message != d.fail_message}};
    for (const auto& [f, differs] : hooks) {
      CLI::Option* opt = app.get_option(f);
      if (opt->count() > 0 && differs && !opt->as<std::string>().empty()) {
        return exitOnPreMpiError(fmt::format("{} applies to the start-up self-check only (no "
                                             "--model/--model-config); a training job would ignore "
                                             "it.\nHINT: drop {}; to inject a failure into training "
                                             "use --kill-at PHASE@STEP[:RANK]", f, f));
      }
      opt->configurable(false);
    }
  }
#endif
  // The resolved configuration (defaults, config file and flags): printed at start by rank 0
  // and saved with every checkpoint.
  const std::string resolved = app.config_to_str(/*default_also=*/true, /*write_description=*/false);
#ifdef SLIDEDP_WITH_TRAINING
  opts.train.resolved_config = resolved;
#endif
  if (worldRankFromEnv() == 0) std::fprintf(stderr, "slidedp: resolved configuration:\n%s", resolved.c_str());
#ifdef SLIDEDP_WITH_TRAINING
  if (!opts.training()) JobGuard::disableStopRequests();  // the self-check: SIGUSR1 ends it
#else
  JobGuard::disableStopRequests();
#endif
  noteLaunchEnvironment();  // before MPI_Init, which sets launcher variables in a singleton
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (agreePreMpiOutcome(0) != 0) return exitAfterAgreedError();  // another rank failed first
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  JobGuard::noteRanksReady(MPI_COMM_WORLD);  // the launcher may send its SIGUSR1 from now on
  JobGuard::watchStartup(MPI_COMM_WORLD, opts.stall_timeout_s);  // until the segment's watchdog
  int rc = 0;
  try {
    rc = run(opts);
  } catch (const AgreedError& e) {
    JobGuard::endStartupWatch();
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::fprintf(stderr, "slidedp: error: %s\n", e.what());
    return exitAfterAgreedError();
  } catch (const std::exception& e) {
    // Any other error of one rank fails the whole job (first error wins).
    JobGuard::failJob(nullptr, nullptr, e.what(), 1);
  }
  JobGuard::endStartupWatch();
  MPI_Finalize();
  return rc;
}
