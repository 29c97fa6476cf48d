#!/usr/bin/python3
"""doctor --format html in Debian's headless Chromium (packages chromium, python3-pil:
scripts/install-deps.sh; the test fails without them, it does not skip).

A machine whose LD_LIBRARY_PATH names a directory called `<img src=x onerror=alert(1)>`:
  1. --dump-dom of the page shows that name as text, and the DOM has no <img> element at all;
  2. a screenshot is rendered (not blank) with the page's stylesheet applied, which also shows
     that the Content-Security-Policy's hash of the stylesheet is right (a wrong one blocks it);
  3. the page has no <script>, fetches nothing (no src=/href= to anywhere), carries the CSP;
  4. --from the saved `--json doctor` renders the same report; a --from file that is not a
     cudnnup report is refused with exit 2 and an empty standard output.
Usage: doctor_html_chromium_test.py CUDNNUP [SCREENSHOT_OUT]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

HOSTILE = "<img src=x onerror=alert(1)>"
HEADER_RGB = (0x24, 0x29, 0x2F)  # header { background } in src/app/render/html_page.cc


def chromium(*args):
    exe = shutil.which("chromium")
    if not exe:
        sys.exit("chromium is missing: run scripts/install-deps.sh (Debian package chromium)")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


def main():
    cudnnup = sys.argv[1]
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        hostile_dir = os.path.join(tmp, HOSTILE)
        os.makedirs(hostile_dir)
        env = dict(os.environ, LD_LIBRARY_PATH=hostile_dir, HOME=tmp, CUDNNUP_HOME=os.path.join(tmp, "store"))
        page = subprocess.run([cudnnup, "doctor", "--format", "html"], env=env, capture_output=True)
        check(page.returncode in (0, 1), f"doctor --format html exits 0 or 1 (got {page.returncode})")
        html = page.stdout.decode("utf-8")
        path = os.path.join(tmp, "report.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)

        check("Content-Security-Policy" in html and "default-src 'none'" in html, "the page carries the CSP")
        check("<script" not in html.lower(), "no <script> in the page")
        check(re.search(r"<[^>]+\b(src|href)\s*=", html, re.I) is None, "no element fetches anything (src=/href=)")

        dom = chromium("--dump-dom", "file://" + path)
        check("&lt;img src=x onerror=alert(1)&gt;" in dom, "the hostile directory name is text in the DOM")
        check(re.search(r"<img\b", dom, re.I) is None, "the DOM has no <img> element")

        shot = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tmp, "shot.png")
        chromium("--window-size=1200,1400", "--screenshot=" + shot, "file://" + path)
        image = Image.open(shot).convert("RGB")
        colours = image.getcolors(1 << 24) or []
        check(len(colours) > 50, f"the screenshot is not blank ({len(colours)} colours)")
        check(image.getpixel((5, 5)) == HEADER_RGB, f"the stylesheet applied under the CSP (header {image.getpixel((5, 5))})")

        saved = subprocess.run([cudnnup, "--json", "doctor"], env=env, capture_output=True)
        saved_path = os.path.join(tmp, "doctor.json")
        with open(saved_path, "wb") as f:
            f.write(saved.stdout)
        again = subprocess.run([cudnnup, "doctor", "--format", "html", "--from", saved_path], env=env, capture_output=True)
        check(again.returncode == page.returncode, "--from the saved report exits like the live page")
        check("&lt;img src=x onerror=alert(1)&gt;" in again.stdout.decode(), "--from shows the same machine")
        bad = subprocess.run([cudnnup, "doctor", "--format", "html", "--from", "/etc/hostname"], env=env, capture_output=True)
        check(bad.returncode == 2 and bad.stdout == b"" and b"/etc/hostname" in bad.stderr,
              "--from a file that is not a report: exit 2, nothing written, the file named")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
