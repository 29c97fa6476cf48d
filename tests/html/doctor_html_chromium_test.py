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
import subprocess
import sys
import tempfile

from page_checks import HOSTILE, HOSTILE_AS_TEXT, Checks, check_dom, check_screenshot, check_static


def main():
    cudnnup = sys.argv[1]
    check = Checks()

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

        check_static(check, html)
        check_dom(check, path, HOSTILE_AS_TEXT)
        shot = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tmp, "shot.png")
        check_screenshot(check, path, shot, "1200,1400")

        saved = subprocess.run([cudnnup, "--json", "doctor"], env=env, capture_output=True)
        saved_path = os.path.join(tmp, "doctor.json")
        with open(saved_path, "wb") as f:
            f.write(saved.stdout)
        again = subprocess.run([cudnnup, "doctor", "--format", "html", "--from", saved_path], env=env, capture_output=True)
        check(again.returncode == page.returncode, "--from the saved report exits like the live page")
        check(HOSTILE_AS_TEXT in again.stdout.decode(), "--from shows the same machine")
        bad = subprocess.run([cudnnup, "doctor", "--format", "html", "--from", "/etc/hostname"], env=env, capture_output=True)
        check(bad.returncode == 2 and bad.stdout == b"" and b"/etc/hostname" in bad.stderr,
              "--from a file that is not a report: exit 2, nothing written, the file named")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
