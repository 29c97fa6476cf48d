#!/usr/bin/env python3
"""One fact, one place: cuDNN's sub-library names, its file-name patterns and the machine
(architecture) names live in src/core/facts/ only. This test fails when code elsewhere under src/
spells one of them out instead of asking the facts module (facts/cudnn_components.h,
facts/cudnn_files.h, facts/machines.h, facts/driver_libraries.h), or writes its own copy of a
string helper that src/core/base/strings.h has.

What counts (comments and #include lines are ignored; prose in messages and help texts is fine):
  component   a string literal that is exactly a sub-library name ("ops", "engines_tensor_ir")
  pattern     a regular expression or glob over cuDNN file names (a literal with "cudnn" and
              regex/glob syntax), a name prefix test (starts_with("libcudnn"), rfind("cudnn", 0)),
              or a name built by pieces ("libcudnn.so." + ..., "cudnn_" + ..., + "64_" +)
  machine     a literal that is exactly a machine name ("x86_64", "aarch64", "x86-64") or a
              multiarch triplet ("aarch64-linux-gnu"), or an ELF/PE machine number in a
              comparison (== 62, case 183:, 0x8664)
  helper      outside src/core/base/strings.*: lower- or upper-casing with the C library
              (tolower, toupper: use ascii_lower, ascii_upper, iequals), a local all_digits, or a
              local starts_with/ends_with function or lambda (use strings.h or C++20's members)

Usage: one_fact_test.py [SOURCE_DIR]   (default: the repository this file is in)
       one_fact_test.py --self-test    (the patterns catch what they should)
"""
import os
import re
import sys

COMPONENTS = ("graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled engines_tensor_ir ext "
              "ops_infer ops_train cnn_infer cnn_train adv_infer adv_train").split()
MACHINES = ("x86_64", "x86-64", "aarch64", "ppc64le", "ppc64", "i386", "i686", "arm64", "amd64", "sbsa")

# (file, literal or code fragment it may contain, why). Keep this short: each entry is a fact
# that cannot move to src/core/facts/.
ALLOW = [
    ("src/app/child/framework_probe.cc", "startswith('libcudnn",
     "Python code run inside the framework's process; the C++ side re-parses every path it returns "
     "with parse_cudnn_library_name"),
    ("src/core/loader/framework_torch.cc", "libcudnn.so.*[0-9]",
     "PyTorch's own glob (torch/__init__.py _preload_cuda_deps), modelled as torch writes it"),
    ("src/core/install/archive_name.cc", "cudnn",
     "the grammar of NVIDIA's archive file names (cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz), "
     "not library names; install, archive-info and the known-archives table use it"),
    ("src/core/explain/catalogue_regex.h", "tolower(",
     "std::regex_traits<char>'s case folding through the regex's locale facet, which a case-insensitive "
     "std::regex must keep doing exactly as libstdc++ does (not ASCII lowering of a name)"),
    ("src/core/base/environment.h", '"x86_64"',
     "the default arch of an Environment built by a test; the running machine's comes from uname "
     "(platform/), and core/base may not see core/facts"),
]

LITERAL = re.compile(r'R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)
# "libcudnn" or "cudnn" as the start of a library or header name (cudnn_ops, cudnn64_9, cudnn.h,
# a regex group), not the words "cudnnup", "nvidia-cudnn-cu12", "CUDNN_PATH" or an archive name.
LIBRARY_WORD = re.compile(r'(?<![-\w])(lib)?cudnn(?=[_.(\[*\\]|64)')
REGEX_SYNTAX = re.compile(r'\\d|\\\.|\\w|\\s|\(\?|\[[a-z0-9]|\.\*|\*\[|\(\\d|\|\)')


def strip_comments(src):
    """Blanks out // and /* */ comments and #include lines, keeping literals and line numbers."""
    out, i, n = [], 0, len(src)
    while i < n:
        m = re.match(r'R"([^(\s]*)\(', src[i:i + 40]) if src.startswith('R"', i) else None
        if m and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            end = src.find(')' + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(src[i:end])
            i = end
        elif src[i] in '"\'':
            j = i + 1
            while j < n and src[j] != src[i] and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif src.startswith('#include', i) and (i == 0 or src[i - 1] == '\n'):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        else:
            out.append(src[i])
            i += 1
    return ''.join(out)


def literal_problems(text):
    """Why a string literal's contents spell out a fact, or None."""
    if text in COMPONENTS:
        return "component"
    if text in MACHINES or re.fullmatch(r'(/usr)?(/lib/)?[a-z0-9_]+-linux-gnu[a-z0-9]*', text):
        return "machine"
    if LIBRARY_WORD.search(text) and REGEX_SYNTAX.search(text):
        return "pattern"
    return None


CODE_PATTERNS = [
    ("pattern", re.compile(r'(starts_with|ends_with|rfind|compare\(\s*0\s*,\s*\d+\s*,)\s*\(?\s*"(lib)?cudnn(_|64_?|\.so\.?)?"')),
    ("pattern", re.compile(r'"[^"\n]*(libcudnn[^"\n]*|cudnn\w*|64_|\.so\.?|_v)"\s*\+\s*(std::to_string|[a-z_]*component|major)')),
    ("pattern", re.compile(r'\+\s*"(64_|\.so\.|64_\d?\.dll)"')),
    ("machine", re.compile(r'(case\s+|[=!]=\s*)(62|183)\b|\b0x(8664|aa64|AA64|014c|14c)\b')),
]


# Copies of what src/core/base/strings.h already has. std::string's own .starts_with() and
# .ends_with() calls are fine; a function or lambda of that name is a copy.
HELPER_PATTERNS = [
    ("helper", re.compile(r'\b(tolower|toupper)\s*\(')),
    ("helper", re.compile(r'\ball_digits\s*=(?!=)|\bbool\s+all_digits\s*\(')),
    ("helper", re.compile(r'\b(bool|auto)\s+i?(starts_with|ends_with)\s*(\(|=)')),
]
STRINGS_MODULE = "src/core/base/strings."


def problems_in(path, src):
    code = strip_comments(src)
    found = []
    for m in LITERAL.finditer(code):
        text = m.group(2) if m.group(2) is not None else m.group(3)
        why = literal_problems(text)
        if why:
            found.append((code.count('\n', 0, m.start()) + 1, why, m.group(0)))
    patterns = CODE_PATTERNS + ([] if path.startswith(STRINGS_MODULE) else HELPER_PATTERNS)
    for why, pattern in patterns:
        for m in pattern.finditer(code):
            found.append((code.count('\n', 0, m.start()) + 1, why, m.group(0)))
    allowed = [a for f, a, _ in ALLOW if path == f]
    out, seen = [], set()
    for line, why, text in sorted(found):
        if any(a in text for a in allowed) or (line, why) in seen:
            continue
        seen.add((line, why))
        out.append((line, why, text))
    return out


def scan(root):
    failures = []
    src_root = os.path.join(root, "src")
    for directory, _, files in os.walk(src_root):
        for name in sorted(files):
            if not name.endswith((".cc", ".h")):
                continue
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if rel.startswith("src/core/facts/"):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for line, why, text in problems_in(rel, f.read()):
                    failures.append(f"{rel}:{line}: {why}: {text[:120]}")
    return failures


def self_test():
    cases = {
        'if (c == "engines_tensor_ir") x();': ["component"],
        'std::regex re(R"(^libcudnn_(.+)\\.so\\.\\d+$)");': ["pattern"],
        'return "libcudnn.so." + std::to_string(m);': ["pattern"],
        'resolve("cudnn_" + component + "64_" + std::to_string(major) + ".dll");': ["pattern"],
        'if (base.rfind("libcudnn", 0) == 0) x();': ["pattern"],
        'if (m == 62) name = "x86-64";': ["machine"],
        'name = "x86-64";': ["machine"],
        'if (m == 62) x();': ["machine"],
        'std::string t = "aarch64-linux-gnu";': ["machine"],
        'std::string msg = "reinstall libcudnn.so.9 from the archive";': [],
        '// a comment naming "engines_tensor_ir" and libcudnn.so.9': [],
        '#include "facts/cudnn_files.h"': [],
        'std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });': ["helper"],
        'x = char(toupper(static_cast<unsigned char>(x)));': ["helper"],
        'bool all_digits = !t.empty() && std::all_of(t.begin(), t.end(), is_digit);': ["helper"],
        'static bool all_digits(std::string_view s) { return true; }': ["helper"],
        'auto ends_with = [&](std::string_view s) { return true; };': ["helper"],
        'bool istarts_with(const std::string& s, const std::string& p) {': ["helper"],
        'if (all_digits(text) && dir.ends_with("/lib") && name.starts_with("lib")) x();': [],
        'std::string k = ascii_lower(key); bool same = iequals(a, b);': [],
    }
    bad = 0
    for src, want in cases.items():
        got = sorted(why for _, why, _ in problems_in("src/x.cc", src))
        if got != sorted(want):
            print(f"self-test: {src!r}: got {got}, want {sorted(want)}")
            bad += 1
    # The strings module itself defines the helpers.
    own = 'bool all_digits(std::string_view s) {\nbool istarts_with(std::string_view s, std::string_view prefix) {'
    got = [why for _, why, _ in problems_in("src/core/base/strings.cc", own)]
    if got:
        print(f"self-test: src/core/base/strings.cc: got {got}, want []")
        bad += 1
    return bad


def main():
    if "--self-test" in sys.argv:
        return 1 if self_test() else 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if self_test():
        return 1
    failures = scan(root)
    for f in failures:
        print(f)
    if failures:
        print(f"\n{len(failures)} place(s) spell out a cuDNN or machine fact outside src/core/facts/ or copy a "
              "string helper; use facts/cudnn_components.h, facts/cudnn_files.h, facts/machines.h or "
              "base/strings.h (or, for a fact that cannot move there, add it to ALLOW in "
              "tests/style/one_fact_test.py with the reason).")
        return 1
    print("one fact, one place: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
