"""What both HTML tests (doctor_html_chromium_test.py, fleet_html_chromium_test.py) check of a
page, in Debian's headless Chromium (packages chromium, python3-pil: scripts/install-deps.sh; a
missing one fails the test, it does not skip)."""
import re
import shutil
import subprocess
import sys

from PIL import Image

HOSTILE = "<img src=x onerror=alert(1)>"
HOSTILE_AS_TEXT = "&lt;img src=x onerror=alert(1)&gt;"
HEADER_RGB = (0x24, 0x29, 0x2F)  # header { background } in src/app/render/html_page.cc


class Checks:
    """Prints one line per check and remembers the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def exit_code(self):
        return 1 if self.failures else 0


def chromium(*args):
    exe = shutil.which("chromium")
    if not exe:
        sys.exit("chromium is missing: run scripts/install-deps.sh (Debian package chromium)")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


def check_static(check, html):
    """The page as bytes: the CSP, no script, nothing that fetches."""
    check("Content-Security-Policy" in html and "default-src 'none'" in html, "the page carries the CSP")
    check("<script" not in html.lower(), "no <script> in the page")
    check(re.search(r"<[^>]+\b(src|href)\s*=", html, re.I) is None, "no element fetches anything (src=/href=)")


def check_dom(check, path, hostile_text):
    """The page as Chromium parses it: the hostile name is text and no <img> exists. Returns the DOM."""
    dom = chromium("--dump-dom", "file://" + path)
    check(hostile_text in dom, "the hostile name is text in the DOM")
    check(re.search(r"<img\b", dom, re.I) is None, "the DOM has no <img> element")
    return dom


def check_screenshot(check, path, shot, size):
    """A rendered page, not a blank one, with the stylesheet applied: a wrong CSP hash would block it."""
    chromium("--window-size=" + size, "--screenshot=" + shot, "file://" + path)
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(1 << 24) or []
    check(len(colours) > 50, f"the screenshot is not blank ({len(colours)} colours)")
    check(image.getpixel((5, 5)) == HEADER_RGB, f"the stylesheet applied under the CSP (header {image.getpixel((5, 5))})")
