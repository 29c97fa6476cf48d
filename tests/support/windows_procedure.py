"""Helpers of scripts/test-windows-procedure.sh (the guide's procedure under Wine).

Reads `cudnnup --json doctor` documents and:
  finding DOC ID SEVERITY            asserts the finding is there with that severity
  absent DOC ID                      asserts it is not
  batch DOC ID OUT_DIR               writes each fix line of the finding that is safe to run inside a
                                     Wine prefix (cudnnup env/which/doctor/list, mkdir, move) as
                                     OUT_DIR/NN.cmd, a batch file of that one line; prints the names
  golden DOC IDS GOLDEN WORK USER    compares the PowerShell lines of the findings IDS (comma
                                     separated, in that order) with the file GOLDEN, the test's work
                                     folder and the prefix's user name written as <WORK> and <USER>;
                                     CUDNNUP_UPDATE_GOLDEN=1 writes the file instead
Exit code 0 when the check holds, 1 with the reason on stdout otherwise.
"""
import json
import os
import sys

SAFE_CUDNNUP = {"env", "which", "doctor", "list", "current"}
SAFE_RUN = {"mkdir", "move"}


def load(path):
    return json.loads(open(path, encoding="utf-8", errors="replace").read())


def findings(doc, fid):
    return [f for f in doc["findings"] if f["id"] == fid]


def safe(step):
    if "cudnnup" in step:
        return bool(step["cudnnup"]) and step["cudnnup"][0] in SAFE_CUDNNUP
    if "run" in step:
        return bool(step["run"]) and step["run"][0].lower() in SAFE_RUN
    return False


def main(argv):
    cmd = argv[1]
    doc = load(argv[2])
    if cmd == "finding":
        fid, sev = argv[3], argv[4]
        got = findings(doc, fid)
        if not got:
            print(f"no {fid}; findings: {[(f['id'], f['severity']) for f in doc['findings']]}")
            return 1
        if got[0]["severity"] != sev:
            print(f"{fid} is {got[0]['severity']}, expected {sev}: {got[0]['title']}")
            return 1
        return 0
    if cmd == "absent":
        got = findings(doc, argv[3])
        if got:
            print(f"{argv[3]} still there: {got[0]['title']}")
            return 1
        return 0
    if cmd == "batch":
        fid, out_dir = argv[3], argv[4]
        got = findings(doc, fid)
        if not got:
            print(f"no {fid}")
            return 1
        f = got[0]
        if len(f["fix"]) != len(f["fix_steps"]):
            print(f"fix has {len(f['fix'])} lines but fix_steps {len(f['fix_steps'])}")
            return 1
        os.makedirs(out_dir, exist_ok=True)
        n = 0
        for line, step in zip(f["fix"], f["fix_steps"]):
            if not safe(step):
                continue
            n += 1
            name = os.path.join(out_dir, f"{n:02d}.cmd")
            # A batch file: the line as typed at the prompt. A FOR variable is %%i in a batch file,
            # %i at the prompt (docs/windows.md); the work paths hold no other %.
            body = line.replace("%i", "%%i") if line.lower().startswith("for /f") else line
            with open(name, "w", encoding="utf-8", newline="\r\n") as b:
                b.write("@" + body + "\nexit /b %errorlevel%\n")
            print(name)
        return 0
    if cmd == "golden":
        ids, golden, work, user = argv[3].split(","), argv[4], argv[5], argv[6]
        lines = []
        for fid in ids:
            got = findings(doc, fid)
            if not got:
                print(f"no {fid} in the pwsh document")
                return 1
            lines.append(f"# {fid} ({got[0]['severity']})")
            lines.extend(got[0]["fix"])
        text = "\n".join(lines) + "\n"
        for old, new in ((work, "<WORK>"), (user, "<USER>")):
            if old:
                text = text.replace(old, new)
        if os.environ.get("CUDNNUP_UPDATE_GOLDEN") == "1":
            os.makedirs(os.path.dirname(golden), exist_ok=True)
            open(golden, "w", encoding="utf-8").write(text)
            return 0
        if not os.path.exists(golden):
            print(f"{golden} is missing; run with CUDNNUP_UPDATE_GOLDEN=1 and review it")
            return 1
        want = open(golden, encoding="utf-8").read()
        if want != text:
            import difflib
            print("".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True), "golden", "now"))[:1500])
            return 1
        return 0
    print(f"unknown command {cmd}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
