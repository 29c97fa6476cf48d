#include "app/render/bench_render.h"

#include <algorithm>
#include <cstdio>

#include "app/render/html_page.h"
#include "base/strings.h"

namespace cudnnup {

namespace {

}  // namespace

std::string render_bench_text(const BenchHeader& h, const std::vector<BenchRow>& rows) {
  std::string out = "cudnnup bench: cuDNN " + h.cudnn_version + " from " + h.lib_dir + "\n";
  out += "GPU " + std::to_string(h.gpu) + ": " + h.gpu_name + "; ";
  if (h.peak.known()) {
    out += "peak (" + h.peak.sku + ", dense) " + format_number("%.1f", h.peak.bf16) + " TFLOP/s bf16, " + format_number("%.1f", h.peak.fp16) +
           " fp16, " + format_number("%.1f", h.peak.tf32) + " tf32, " + format_number("%.1f", h.peak.fp32) + " fp32 (" + h.peak.source + ")\n";
  } else {
    out += "peak unknown: this GPU is not in data/gpu_peaks.json, so no rate is checked against it\n";
  }
  out += h.policy == "wide" ? "Engines: a wider search than PyTorch's (heuristics A, B and fallback, no filter)"
                            : "Engines: as PyTorch chooses them (heuristics INSTANT then fallback, its engine filter)";
  out += std::string(", TF32 ") + (h.allow_tf32 ? "allowed" : "off") + " for fp32\n";
  if (h.compared) {
    if (h.mismatches.empty()) {
      out += "Compared with PyTorch: same cuDNN library, same TF32 setting, same engine sources\n";
    } else {
      out += "NOT like for like with the PyTorch results:\n";
      for (const auto& m : h.mismatches) out += "  - " + m + "\n";
    }
  }
  out += "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-30s %-4s %-4s %9s %8s %6s %6s %10s %6s\n", "shape", "type", "lay", "ms",
                "TFLOP/s", "%peak", "engine", "PyTorch ms", "ratio");
  out += line;
  for (const auto& r : rows) {
    double peak = h.peak.for_type(r.bench.type, r.tensor_cores);
    if (!r.error.empty()) {
      std::snprintf(line, sizeof line, "%-30s %-4s %-4s  error: %s\n", r.bench.shape.shape.str().c_str(),
                    data_type_name(r.bench.type), layout_name(r.bench.layout), r.error.c_str());
      out += line;
      continue;
    }
    std::snprintf(line, sizeof line, "%-30s %-4s %-4s %9.4f %8.1f %5.0f%% %6lld %10s %6s\n",
                  r.bench.shape.shape.str().c_str(), data_type_name(r.bench.type), layout_name(r.bench.layout), r.ms,
                  r.tflops, peak > 0 ? 100.0 * r.tflops / peak : 0.0, static_cast<long long>(r.engine),
                  r.pytorch_ms ? format_number("%.4f", *r.pytorch_ms).c_str() : "-",
                  r.ratio() ? format_number("%.2fx", *r.ratio()).c_str() : "-");
    out += line;
    if (!r.note.empty()) out += "    note: " + r.note + "\n";
  }
  out += "\nratio = PyTorch time / cudnnup time (>= 1.00x: cudnnup's engine choice is at least as fast).\n";
  return out;
}

std::string render_bench_plot_svg(const std::string& title, const std::string& peak_source,
                                  const std::vector<BenchPlotRow>& rows) {
  const int bar_h = 10, group_h = 30, left = 300, width = 900, top = 60;
  const int height = top + group_h * static_cast<int>(rows.size()) + 50;
  double max_value = 0;
  for (const auto& r : rows) max_value = std::max({max_value, r.tflops, r.pytorch_tflops.value_or(0.0), r.peak_tflops});
  if (max_value <= 0) max_value = 1;
  const double scale = (width - left - 40) / max_value;
  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
       std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"10\" y=\"20\" font-size=\"14\">" + html_text(title) + "</text>\n";
  s += "<text x=\"10\" y=\"38\">" +
       html_text("blue: cudnnup bench; orange: PyTorch cudnn.benchmark=True; red line: peak for the type (" +
                  peak_source + ")") +
       "</text>\n";
  int y = top;
  for (const auto& r : rows) {
    s += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + 14) + "\" text-anchor=\"end\">" +
         html_text(r.label) + "</text>\n";
    s += "<rect class=\"cudnnup\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" +
         format_number("%.1f", std::max(0.0, r.tflops) * scale) + "\" height=\"" + std::to_string(bar_h) + "\" fill=\"#3465a4\"/>\n";
    s += "<text x=\"" + format_number("%.1f", left + std::max(0.0, r.tflops) * scale + 4) + "\" y=\"" + std::to_string(y + 11) + "\">" +
         format_number("%.0f", r.tflops) + "</text>\n";
    if (r.pytorch_tflops && *r.pytorch_tflops > 0) {
      double pt = *r.pytorch_tflops;
      s += "<rect class=\"pytorch\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2 + bar_h) +
           "\" width=\"" + format_number("%.1f", pt * scale) + "\" height=\"" + std::to_string(bar_h) + "\" fill=\"#f57900\"/>\n";
      s += "<text x=\"" + format_number("%.1f", left + pt * scale + 4) + "\" y=\"" + std::to_string(y + 21) + "\">" +
           format_number("%.0f", pt) + "</text>\n";
    }
    if (r.peak_tflops > 0) {
      std::string px = format_number("%.1f", left + r.peak_tflops * scale);
      s += "<line class=\"peak\" x1=\"" + px + "\" x2=\"" + px + "\" y1=\"" + std::to_string(y) + "\" y2=\"" +
           std::to_string(y + 2 * bar_h + 4) + "\" stroke=\"#cc0000\" stroke-width=\"2\"/>\n";
    }
    y += group_h;
  }
  s += "<line x1=\"" + std::to_string(left) + "\" x2=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top - 4) +
       "\" y2=\"" + std::to_string(y) + "\" stroke=\"black\"/>\n";
  s += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 20) + "\">0</text>\n";
  s += "<text x=\"" + format_number("%.1f", left + max_value * scale) + "\" y=\"" + std::to_string(y + 20) +
       "\" text-anchor=\"end\">" + format_number("%.0f", max_value) + " TFLOP/s</text>\n";
  s += "</svg>\n";
  return s;
}

std::string render_bench_svg(const BenchHeader& h, const std::vector<BenchRow>& rows) {
  std::vector<BenchPlotRow> plot;
  for (const auto& r : rows) {
    BenchPlotRow p;
    p.label = r.bench.shape.shape.str() + " " + data_type_name(r.bench.type) + " " + layout_name(r.bench.layout);
    p.tflops = r.tflops;
    if (r.pytorch_ms && *r.pytorch_ms > 0)
      p.pytorch_tflops = r.bench.shape.shape.forward_flops() / (*r.pytorch_ms * 1e-3) / 1e12;
    p.peak_tflops = h.peak.for_type(r.bench.type, r.tensor_cores);
    plot.push_back(std::move(p));
  }
  return render_bench_plot_svg("Forward convolution TFLOP/s: cuDNN " + h.cudnn_version + " on " + h.gpu_name,
                               h.peak.known() ? h.peak.sku + ", " + h.peak.source : std::string("unknown for this GPU"),
                               plot);
}

}  // namespace cudnnup
