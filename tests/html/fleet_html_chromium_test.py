#!/usr/bin/python3
"""fleet --format html in Debian's headless Chromium (packages chromium, python3-pil:
scripts/install-deps.sh; the test fails without them, it does not skip).

Forty hosts' real `cudnnup --json doctor` reports (this machine's, under forty host names, four of
them edited to load another cuDNN), plus a report file named `<img src=x onerror=alert(1)>.json`
that is not JSON:
  1. --dump-dom shows that file name as text, and the DOM has no <img> element;
  2. the page names the four differing hosts, and has no <script> and nothing that fetches;
  3. a screenshot is rendered (not blank) with the stylesheet applied under the CSP.
Usage: fleet_html_chromium_test.py CUDNNUP [SCREENSHOT_OUT]
"""
import json
import os
import subprocess
import sys
import tempfile

from page_checks import HOSTILE, HOSTILE_AS_TEXT, Checks, check_dom, check_screenshot, check_static


def drift(report):
    """The same report, with the copy a plain program loads said to be cuDNN 9.14.0."""
    other = json.loads(json.dumps(report))
    loaded = {os.path.dirname(w["resolution"].get("canonical") or "") for w in other.get("plain_program", [])}
    for c in other.get("copies", []):
        if c.get("lib_dir") in loaded:
            c["version"] = "9.14.0"
    for w in other.get("plain_program", []):
        if isinstance(w.get("cudnn"), dict):
            w["cudnn"]["version"] = "9.14.0"
    return other


def main():
    cudnnup = sys.argv[1]
    check = Checks()

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=tmp, CUDNNUP_HOME=os.path.join(tmp, "store"))
        env.pop("LD_LIBRARY_PATH", None)
        doctor = subprocess.run([cudnnup, "--json", "doctor"], env=env, capture_output=True)
        report = json.loads(doctor.stdout)
        check(bool(report.get("plain_program")), "this machine's doctor report says what a plain program loads")
        reports = os.path.join(tmp, "reports")
        os.makedirs(reports)
        for i in range(40):
            host = f"gpu{i:03d}"
            r = drift(report) if i % 10 == 3 else dict(report)
            r["host"] = host
            with open(os.path.join(reports, host + ".json"), "w") as f:
                json.dump(r, f)
        with open(os.path.join(reports, HOSTILE + ".json"), "w") as f:
            f.write("{ not json")

        page = subprocess.run([cudnnup, "fleet", "--format", "html", reports], env=env, capture_output=True)
        check(page.returncode == 1, f"fleet --format html exits 1: hosts differ (got {page.returncode})")
        html = page.stdout.decode("utf-8")
        path = os.path.join(tmp, "fleet.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
        check_static(check, html)
        dom = check_dom(check, path, HOSTILE_AS_TEXT + ".json")
        check("Differ from the majority: 4 hosts" in dom, "the four drifted hosts are counted")
        check(all(f"gpu{i:03d}" in dom for i in (3, 13, 23, 33)), "and named")

        shot = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tmp, "shot.png")
        check_screenshot(check, path, shot, "1200,1000")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
