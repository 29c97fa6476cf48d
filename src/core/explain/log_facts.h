// What a log says beyond the messages the catalogue matched: the facts its `log_facts` table reads
// from anywhere in the text (GPU memory figures, a driver version, a GPU and its compute
// capability, the platform, lines showing cuDNN already reached the GPU, an illegal memory
// access, ...), and the facts derived from them. Evidence rules (evidence.h) weigh causes by them.
#pragma once

#include <map>
#include <string>

#include "explain/error_catalogue.h"
#include "explain/log_records.h"

namespace cudnnup {

using LogFacts = std::map<std::string, std::string>;

// The first match of each fact in the log (a fact keeps its first value), then derive_log_facts.
// `fact_lines[i]`: the lines the needles of catalogue.facts[i] are on, in order (matcher.h).
// `message_facts`: what the recognised messages say themselves (a library name's platform), added
// like a fact's `set` pairs. A `set` key given two values (a Linux library and a Windows DLL) is
// dropped: the log does not say.
LogFacts read_log_facts(const LogLines& lines, const std::vector<std::vector<int>>& fact_lines, const ErrorCatalogue& catalogue,
                        const std::vector<std::pair<std::string, std::string>>& message_facts = {});

// free_bytes/total_bytes -> free_mib, total_mib, free_percent; gpu_cc "750" / "sm_86" / "8.6" ->
// "7.5" / "8.6", and gpu_below_every_cudnn (with cudnn_cc_floor) when it is below the lowest compute
// capability any cuDNN release in rules.json supports; driver_version -> driver_cuda, the newest CUDA that driver runs (rules.json's
// driver_minimums, for the log's platform).
void derive_log_facts(LogFacts& facts);

}  // namespace cudnnup
