// slidedp_generate: text from a Hugging Face model directory (e.g. one slidedp exported), to
// check a fine-tuned model by eye. Single process, no MPI.
// Design decision: it runs the same unit-by-unit LibTorch code as training (model/decoder.h),
// so what it prints is what the trained weights compute; each new token runs over the earlier
// tokens' cached keys and values (model/kv_cache.h; the same logits as recomputing the prefix,
// FamilyParity.CachedDecodingEqualsTheWholePrefix). One sequence, no batching.
#include <sentencepiece_processor.h>  // defines: SentencePieceProcessor (tokenizer.model)
#include <torch/cuda.h>               // defines: torch::cuda::is_available

#include <CLI/CLI.hpp>  // defines: the command line
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "apps/option_numbers.h"  // defines: seedCheck
#include "common/errors.h"        // defines: UserError
#include "common/utf8.h"          // defines: utf8Problem
#include "formats/fs_util.h"      // defines: joinPath, isRegularFile (no std::filesystem)
#include "model/decoder.h"        // defines: generate, unitTensors
#include "model/hf_checkpoint.h"  // defines: loadHostModel

using namespace slidedp;

namespace {

/// --prompt-ids: token ids separated by commas and/or blanks ("1,450,37", "1 450 37", or as
/// tools/generate.py prints them, "[1, 450, 37]"); each id digits only. Throws UserError naming
/// the item for anything else (a sign, a fraction, hex, a letter, an empty item between commas).
std::vector<int64_t> parseIds(const std::string& s) {
  auto trim = [](std::string t) {
    const char* blanks = " \t\n\r\v\f";  // as >> splits words
    const size_t a = t.find_first_not_of(blanks), b = t.find_last_not_of(blanks);
    return a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
  };
  std::string t = trim(s);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  std::vector<int64_t> ids;
  if (trim(t).empty())
    throwUserError("--prompt-ids '{}' holds no id\nHINT: pass ids such as 1,450,37, or --prompt TEXT", s);
  std::vector<std::string> items;
  for (size_t start = 0;;) {
    const size_t comma = t.find(',', start);
    items.push_back(t.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& item : items) {
    if (trim(item).empty())
      throwUserError("--prompt-ids '{}': an empty item (two commas, or one at an end); expected e.g. "
                     "1,450,37 or \"1 450 37\"", s);
    std::stringstream words(item);
    for (std::string w; words >> w;) {
      const size_t digits = w.size() - std::min(w.find_first_not_of('0'), w.size() - 1);  // leading zeros aside
      if (w.find_first_not_of("0123456789") == std::string::npos && digits > 18)
        throwUserError("--prompt-ids: {} is beyond any vocabulary", w);
      if (w.find_first_not_of("0123456789") != std::string::npos)
        throwUserError("--prompt-ids: '{}' is not a token id (digits only; expected e.g. 1,450,37 or "
                       "\"1 450 37\")", w);
      ids.push_back(std::stoll(w.substr(w.size() - digits)));
    }
  }
  return ids;
}

int run(int argc, char** argv) {
  CLI::App app{"slidedp_generate: greedy or sampled text from a Hugging Face model directory"};
  std::string modelDir, prompt, promptIds, device = "cpu", dtype = "fp32";
  int64_t maxNewTokens = 64;  // as tools/generate.py (launcher/slidedp-run generate)
  double temperature = 0.0, topP = 1.0;
  uint64_t seed = 0;
  bool noBos = false, printIds = false, ignoreEos = false, streamIds = false;
  app.add_option("--model", modelDir,
                 "model directory: config.json, *.safetensors, "
                 "tokenizer.model")
      ->required();
  CLI::Option* promptOpt =
      app.add_option("--prompt", prompt, "prompt text (encoded with tokenizer.model; BOS prepended)");
  CLI::Option* promptIdsOpt = app.add_option(
      "--prompt-ids", promptIds, "prompt as comma-separated token ids instead of text (no BOS added)");
  promptIdsOpt->excludes(promptOpt);
  app.add_option("--max-new-tokens", maxNewTokens, "tokens to generate")->capture_default_str();
  app.add_option("--temperature", temperature, "0 = greedy (argmax); > 0 = sampling")
      ->capture_default_str();
  app.add_option("--top-p", topP, "nucleus sampling threshold (1 = off)")->capture_default_str();
  app.add_option("--seed", seed, "sampling seed")->check(seedCheck)->capture_default_str();
  app.add_option("--device", device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--dtype", dtype, "compute dtype: fp32 or bf16")
      ->check(CLI::IsMember({"fp32", "bf16"}))
      ->capture_default_str();
  app.add_flag("--no-bos", noBos, "do not prepend BOS to a text prompt");
  app.add_flag("--ignore-eos", ignoreEos, "keep generating after an EOS token");
  app.add_flag("--print-ids", printIds, "also print the prompt's and the generated token ids, after the text");
  app.add_flag("--stream-ids", streamIds,
               "print each generated token id as soon as it is chosen, one '+ID' line each, then "
               "the list of them, and no text (tools/generate.py decodes them as they come)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "slidedp_generate: error: %s\nHINT: slidedp_generate --help lists the "
                 "options\n", e.what());
    return 2;
  }
  if (promptIdsOpt->count() > 0 && promptIds.empty())
    throwUserError("--prompt-ids is empty\nHINT: pass ids such as 1,450,37, or --prompt TEXT");
  if (maxNewTokens < 0) throwUserError("--max-new-tokens must be >= 0, got {}", maxNewTokens);
  if (!(temperature >= 0)) throwUserError("--temperature must be >= 0 (0: greedy), got {}", temperature);
  if (!(topP > 0 && topP <= 1)) throwUserError("--top-p must be in (0, 1], got {}", topP);

  if (device == "cuda" && !torch::cuda::is_available())
    throwUserError("--device cuda: no CUDA device is available\nHINT: use --device cpu");
  // A training checkpoint is not a model directory: it holds the optimizer state, and the
  // job exports the model (--export).
  if (!formats::isRegularFile(formats::joinPath(modelDir, "config.json")) &&
      (formats::isRegularFile(formats::joinPath(modelDir, "trainer_state.json")) ||
       formats::isRegularFile(formats::joinPath(modelDir, "latest"))))
    throwUserError("{} is a training checkpoint, not a model directory (config.json + safetensors)"
                   "\nHINT: export its model: launcher/slidedp-run -- --resume {} --steps <the checkpoint's "
                   "step> --export OUT (nothing is trained; the run's flags come from the checkpoint), "
                   "then pass --model OUT",
                   modelDir, modelDir);
  if (formats::isRegularFile(modelDir))
    throwUserError("--model {} is a file; it takes the model's directory (config.json, *.safetensors, "
                   "tokenizer.model)\nHINT: --model {}", modelDir, formats::parentPath(modelDir));
  auto m = model::loadHostModel(modelDir, /*checkDType=*/false);
  std::fprintf(stderr,
               "slidedp_generate: model %s (%s, L=%ld, C=%ld, V=%ld), device %s, dtype %s, "
               "max_new_tokens %ld, temperature %g, top_p %g, seed %lu\n",
               modelDir.c_str(), model::familyName(m.config.family),
               static_cast<long>(m.config.numLayers), static_cast<long>(m.config.hiddenSize),
               static_cast<long>(m.config.vocabSize), device.c_str(), dtype.c_str(),
               static_cast<long>(maxNewTokens), temperature, topP,
               static_cast<unsigned long>(seed));

  sentencepiece::SentencePieceProcessor sp;
  const std::string spPath = formats::joinPath(modelDir, "tokenizer.model");
  const bool haveSp = formats::isRegularFile(spPath) && sp.Load(spPath).ok();
  std::vector<int64_t> ids;
  if (!promptIds.empty()) {
    ids = parseIds(promptIds);
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] < 0 || ids[i] >= m.config.vocabSize)
        throwUserError("--prompt-ids: id {} (position {}) is outside the model's vocabulary "
                       "[0, {}).\nHINT: the ids must come from this model's tokenizer",
                       ids[i], i, m.config.vocabSize);
  } else {
    size_t at = 0;
    if (const char* why = utf8Problem(prompt.data(), prompt.size(), &at))
      throwUserError("--prompt is not UTF-8 text: {} at byte {} (the tokenizer would read it as U+FFFD)"
                     "\nHINT: pass the prompt in UTF-8 (e.g. iconv -f latin1 -t utf-8), or its ids with --prompt-ids",
                     why, at);
    if (!haveSp && !prompt.empty())
      throwUserError(
          "{}: no SentencePiece tokenizer.model, cannot encode --prompt\nHINT: {}",
          modelDir,
          formats::isRegularFile(formats::joinPath(modelDir, "tokenizer.json"))
              ? "its tokenizer is Hugging Face's tokenizer.json: launcher/slidedp-run generate --model "
                "DIR --prompt TEXT tokenises with it (text in, text out), or pass the prompt as --prompt-ids"
              : "pass the prompt as --prompt-ids");
    if (!noBos) {
      if (!m.config.bosTokenId)
        throwUserError(
            "{}: config.json has no bos_token_id to start the text with\nHINT: pass --prompt "
            "TEXT with --no-bos, or the prompt as --prompt-ids 1,2,3",
            modelDir);
      ids.push_back(*m.config.bosTokenId);
    }
    if (!prompt.empty()) {
      std::vector<int> pieces;
      if (!sp.Encode(prompt, &pieces).ok()) throwUserError("cannot encode the prompt");
      ids.insert(ids.end(), pieces.begin(), pieces.end());
    }
  }
  if (ids.empty())
    throwUserError("the prompt is empty (no --prompt text, no --prompt-ids, and --no-bos)\nHINT: "
                   "pass --prompt TEXT or --prompt-ids 1,2,3");

  auto units = model::unitTensors(m, dtype == "bf16" ? at::kBFloat16 : at::kFloat,
                                  at::Device(device == "cuda" ? at::kCUDA : at::kCPU));
  model::GenerateOptions o;
  o.maxNewTokens = maxNewTokens;
  o.temperature = temperature;
  o.topP = topP;
  o.seed = seed;
  o.stopAtEos = !ignoreEos;
  // The text as it grows (with a tokenizer.model, not --stream-ids): the prompt, then each
  // token's new characters, held back while the last token ends inside a character (U+FFFD).
  // Incremental, as text-generation-inference's decode_token: only the tokens since
  // `prefix_at` are decoded (a few before those not yet printed, `read_at`, so that a piece's
  // leading space decodes as in the whole text), not the whole sequence at each token.
  std::vector<int> all(ids.begin(), ids.end());
  size_t prefix_at = 0, read_at = 0;
  auto decodeFrom = [&](size_t from, size_t to) {
    std::string text;
    if (!sp.Decode(std::vector<int>(all.begin() + static_cast<std::ptrdiff_t>(from),
                                    all.begin() + static_cast<std::ptrdiff_t>(to)), &text).ok())
      throwUserError("cannot decode the generated tokens");
    return text;
  };
  // `last`: at the end, print what is left even where it ends inside a character
  auto printTextGrown = [&](bool last) {
    static const std::string kReplacement = "\xEF\xBF\xBD";
    const std::string before = decodeFrom(prefix_at, read_at), text = decodeFrom(prefix_at, all.size());
    const bool partial = text.size() >= kReplacement.size() &&
                         text.compare(text.size() - kReplacement.size(), kReplacement.size(), kReplacement) == 0;
    if (!last && (partial || text.size() <= before.size() || text.compare(0, before.size(), before) != 0)) return;
    if (text.compare(0, before.size(), before) == 0) std::fputs(text.c_str() + before.size(), stdout);
    else std::fputs(("\n" + decodeFrom(0, all.size())).c_str(), stdout);  // (last) the decode of the
                                                                           // printed tokens changed
    std::fflush(stdout);
    prefix_at = read_at > 6 ? read_at - 6 : 0;  // a few tokens of context for the next decode
    read_at = all.size();
  };
  if (streamIds) {
    o.onToken = [](int64_t id) {
      std::printf("+%ld\n", static_cast<long>(id));
      std::fflush(stdout);
    };
  } else if (haveSp) {
    o.onToken = [&](int64_t id) {
      all.push_back(static_cast<int>(id));
      printTextGrown(false);
    };
  }
  if (static_cast<int64_t>(ids.size()) >= m.config.maxPositionEmbeddings && maxNewTokens > 0)
    throwUserError("the prompt has {} tokens, the model's context {} (max_position_embeddings): "
                   "nothing can be generated after it\nHINT: a shorter prompt", ids.size(),
                   m.config.maxPositionEmbeddings);
  if (haveSp && !streamIds) printTextGrown(false);  // the prompt, once it is known to fit
  auto out = model::generate(m.config, m.layout, units, ids, o);
  auto list = [](const std::vector<int64_t>& v, const char* sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? sep : "", v[i]);
    return s;
  };
  if (haveSp && !streamIds) {  // the text streamed above, complete on its line
    if (read_at < all.size()) printTextGrown(true);
    std::printf("\n");
    if (printIds)  // as tools/generate.py shows them
      std::printf("prompt ids: [%s]\ngenerated ids: [%s]\n", list(ids, ", ").c_str(), list(out, ", ").c_str());
  } else {  // --stream-ids (the caller decodes them) or no tokenizer: the generated ids
    std::printf("%s\n", list(out, ",").c_str());
  }
  std::fflush(stdout);  // the text ends its line before the note on stderr
  if (static_cast<int64_t>(out.size()) < maxNewTokens &&
      static_cast<int64_t>(ids.size() + out.size()) >= m.config.maxPositionEmbeddings)
    std::fprintf(stderr, "slidedp_generate: stopped after %zu of --max-new-tokens %ld: the prompt "
                 "and the generated tokens fill the model's context (max_position_embeddings "
                 "%ld)\n", out.size(), static_cast<long>(maxNewTokens),
                 static_cast<long>(m.config.maxPositionEmbeddings));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UserError& e) {
    std::fprintf(stderr, "slidedp_generate: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slidedp_generate: internal error: %s\n", e.what());
    return 1;
  }
}
