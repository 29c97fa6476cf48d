#include "app/child/framework_probe.h"

#include <climits>
#include <map>
#include <sstream>

#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"
#include "loader/cudnn_load_model.h"
#include "base/json_reader.h"
#include "base/paths.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"

namespace cudnnup {
namespace {

// The Python side. Prints one JSON line prefixed with CUDNNUP_PROBE=. Everything the framework
// prints goes to stderr/stdout before it and is ignored.
const char* kCommonTail = R"PY(
import ctypes, json, os
def _maps():
    out = []
    try:
        with open('/proc/self/maps') as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    p = parts[5].strip()
                    if os.path.basename(p).startswith('libcudnn') and p not in out:
                        out.append(p)
    except OSError:
        pass
    return out
mapped = _maps()
if version is None:
    for p in mapped:
        b = os.path.basename(p)
        if b.startswith('libcudnn.so'):
            try:
                version = int(ctypes.CDLL(p).cudnnGetVersion()); source = 'cudnnGetVersion() of the mapped shim'
            except Exception:
                pass
print('CUDNNUP_PROBE=' + json.dumps({'version': version, 'source': source, 'mapped': [os.path.realpath(p) for p in mapped], 'op_ran': op_ran, 'op_error': op_error}))
)PY";

std::string script_for(const std::string& framework) {
  std::string head = "version = None\nsource = ''\nop_ran = False\nop_error = ''\n";
  if (framework == "torch") {
    head += R"PY(
import torch
try:
    if torch.cuda.is_available():
        x = torch.zeros(1, 1, 8, 8, device='cuda'); w = torch.zeros(1, 1, 3, 3, device='cuda')
        torch.nn.functional.conv2d(x, w); torch.cuda.synchronize(); op_ran = True
    else:
        op_error = 'no CUDA device visible to torch'
except Exception as e:
    op_error = repr(e)
try:
    v = torch.backends.cudnn.version()
    if v: version = int(v); source = 'torch.backends.cudnn.version()'
except Exception as e:
    op_error = op_error or repr(e)
)PY";
  } else if (framework == "tensorflow") {
    head += R"PY(
import tensorflow as tf
try:
    if tf.config.list_physical_devices('GPU'):
        x = tf.zeros([1, 8, 8, 1]); w = tf.zeros([3, 3, 1, 1])
        tf.nn.conv2d(x, w, 1, 'SAME').numpy(); op_ran = True
    else:
        op_error = 'no GPU visible to tensorflow'
except Exception as e:
    op_error = repr(e)
)PY";
  } else if (framework == "jax") {
    head += R"PY(
import jax, jax.numpy as jnp
try:
    if any(d.platform == 'gpu' for d in jax.devices()):
        x = jnp.zeros((1, 1, 8, 8)); w = jnp.zeros((1, 1, 3, 3))
        jax.lax.conv(x, w, (1, 1), 'SAME').block_until_ready(); op_ran = True
    else:
        op_error = 'no GPU visible to jax'
except Exception as e:
    op_error = repr(e)
)PY";
  } else if (framework == "onnxruntime") {
    head += R"PY(
import onnxruntime
op_error = 'no model is run: the CUDA provider loads cuDNN only when a session uses it'
)PY";
  } else if (framework == "paddle") {
    head += R"PY(
import paddle
try:
    v = paddle.device.get_cudnn_version()
    if v: version = int(v); source = 'paddle.device.get_cudnn_version()'
except Exception as e:
    op_error = repr(e)
)PY";
  }
  return head + kCommonTail;
}

Version decode(long long v) { return decode_cudnn_version_number(v); }

void compare(FrameworkProbe& probe, const FrameworkReport& f) {
  auto fs = make_real_filesystem();
  if (!f.load || !f.load->resolution.found) {
    if (!probe.mapped.empty()) probe.disagreements.push_back("predicted no cuDNN, but the process mapped " + probe.mapped.front());
  } else {
    std::map<std::string, std::string> predicted;  // by component; "cudnn" = the shim
    predicted["cudnn"] = f.load->resolution.canonical;
    if (f.load->cudnn) {
      for (const auto& s : f.load->cudnn->sub_libraries) {
        if (s.resolution.found) predicted[s.component] = s.resolution.canonical;
      }
    }
    bool shim_seen = false;
    for (const auto& path : probe.mapped) {
      auto name = parse_cudnn_library_name(paths::basename(path));
      std::string key = name ? name->component : path;
      if (key == "cudnn") shim_seen = true;
      auto it = predicted.find(key);
      if (it == predicted.end()) {
        probe.disagreements.push_back("mapped " + path + ", which the model does not load");
      } else if (it->second != path) {
        probe.disagreements.push_back("mapped " + path + " where the model predicted " + it->second);
      }
    }
    if (!shim_seen && probe.ran) {
      probe.disagreements.push_back("the process mapped no libcudnn.so shim; predicted " + f.load->resolution.canonical);
    }
  }
  // cudnnGetVersion() of a shim whose sub-libraries come from another copy reports that copy's
  // version (observed on the GPU machine: the 9.19 wheel shim with 9.14 sub-libraries said 91400),
  // so with a predicted mix the graph library's copy sets the expected number.
  std::optional<Version> expected = f.loaded_cudnn;
  if (f.load && f.load->cudnn && f.load->cudnn->mixed) {
    for (const auto& s : f.load->cudnn->sub_libraries) {
      if (s.component == kCudnnGraphComponent && s.resolution.found) expected = cudnn_copy_version(*fs, s.resolution.path, nullptr);
    }
  }
  if (probe.runtime_cudnn && expected && probe.runtime_cudnn->truncated(3) != expected->truncated(3)) {
    probe.disagreements.push_back("runtime reports cuDNN " + probe.runtime_cudnn->str() + "; predicted " + expected->str());
  }
  probe.agrees = probe.ran && probe.disagreements.empty();
}

}  // namespace

std::vector<FrameworkProbe> probe_frameworks(const std::vector<FrameworkReport>& predictions, int timeout_ms) {
  std::vector<FrameworkProbe> out;
  for (const FrameworkReport& f : predictions) {
    FrameworkProbe probe;
    probe.framework = f.framework;
    probe.interpreter = f.interpreter;
    if (f.interpreter.empty()) {
      probe.failure = "no interpreter known for " + f.env_prefix;
      out.push_back(probe);
      continue;
    }
    ProcessOptions options;
    options.timeout_ms = timeout_ms;
    auto result = run_process({f.interpreter, "-c", script_for(f.framework)}, options);
    if (!result) {
      probe.failure = result.error().message;
    } else if (!result->exited_normally()) {
      probe.failure = result->describe_failure();
    } else {
      size_t at = result->out.rfind("CUDNNUP_PROBE=");
      if (at == std::string::npos) {
        std::string err = result->err.size() > 600 ? result->err.substr(result->err.size() - 600) : result->err;
        probe.failure = "the interpreter exited with " + std::to_string(result->exit_code) + ": " + err;
      } else {
        // The interpreter runs whatever the environment adds (sitecustomize, .pth files): its
        // output is input like any other, read field by field with types checked.
        JsonReader reader("the " + f.framework + " probe's output");
        JsonValue j = reader.parse_object(result->out.substr(at + 14));
        long long version = j.integer("version", 0, 0, LLONG_MAX);
        std::string source = j.string("source");
        std::vector<std::string> mapped = j.strings("mapped");
        bool op_ran = j.boolean("op_ran", false);
        std::string op_error = j.string("op_error");
        if (!reader.ok()) {
          probe.failure = "unreadable probe output: " + reader.status().error().message;
        } else {
          probe.ran = true;
          if (version > 0) probe.runtime_cudnn = decode(version);
          probe.runtime_source = source;
          probe.mapped = mapped;
          probe.gpu_op_ran = op_ran;
          probe.op_error = op_error;
        }
      }
    }
    compare(probe, f);
    out.push_back(probe);
  }
  return out;
}

nlohmann::ordered_json framework_probe_to_json(const FrameworkProbe& p) {
  nlohmann::ordered_json j;
  j["framework"] = p.framework;
  j["interpreter"] = p.interpreter;
  j["ran"] = p.ran;
  j["failure"] = p.failure;
  j["runtime_cudnn"] = p.runtime_cudnn ? nlohmann::ordered_json(p.runtime_cudnn->str()) : nlohmann::ordered_json(nullptr);
  j["runtime_source"] = p.runtime_source;
  j["mapped"] = p.mapped;
  j["gpu_op_ran"] = p.gpu_op_ran;
  j["op_error"] = p.op_error;
  j["agrees"] = p.agrees;
  j["disagreements"] = p.disagreements;
  return j;
}

std::string framework_probe_to_text(const FrameworkProbe& p, bool color) {
  std::ostringstream out;
  auto paint = [&](const std::string& s, const char* code) { return color ? std::string("\033[") + code + "m" + s + "\033[0m" : s; };
  out << p.framework << " (" << p.interpreter << "): ";
  if (!p.ran) {
    out << paint("probe failed", "31") << ": " << p.failure << "\n";
    return out.str();
  }
  out << (p.agrees ? paint("agrees with the prediction", "32") : paint("DISAGREES with the prediction", "31")) << "\n";
  out << "  runtime cuDNN " << (p.runtime_cudnn ? p.runtime_cudnn->str() : std::string("unknown"));
  if (!p.runtime_source.empty()) out << " (" << p.runtime_source << ")";
  out << "\n";
  for (const auto& m : p.mapped) out << "  mapped " << m << "\n";
  if (!p.gpu_op_ran && !p.op_error.empty()) {
    out << "  note: no cuDNN op ran (" << p.op_error << "); sub-libraries may not have loaded\n";
  } else if (!p.op_error.empty()) {
    out << "  note: " << p.op_error << "\n";
  }
  for (const auto& d : p.disagreements) out << "  " << paint("disagreement", "31") << ": " << d << "\n";
  return out.str();
}

}  // namespace cudnnup
