#!/usr/bin/env python3
"""Does a cudnnup binary download over HTTPS, verify the server, find CA certificates the way a
portable binary must, and honour proxy variables?

A throw-away CA signs a certificate for 127.0.0.1 and localhost; tests/support/mirror_server.py
serves a one-release mirror with it over TLS, tests/support/connect_proxy.py is an HTTP proxy.
The download is `cudnnup --json list --available --mirror URL`: it GETs the mirror's index page,
then redistrib_9.19.0.json, and prints what it read. When the index cannot be read it does not
fail: it exits 0 with listed_by "known-archives" and the reason in "note", so every case below
checks the JSON and the server's log, not the exit code.

  A  SSL_CERT_FILE=ca.pem                      succeeds
  B  no CA: the system bundle alone, then SSL_CERT_FILE/SSL_CERT_DIR naming an unrelated CA and an
     empty folder                              fails with a certificate error, no GET served
  C  SSL_CERT_DIR=DIR, the CA as DIR/<hash>.0   succeeds
  D  https_proxy=http://127.0.0.1:PROXY, SSL_CERT_FILE=ca.pem, mirror https://localhost:PORT/
                                               succeeds, and the proxy logged CONNECT localhost:PORT
  E  http_proxy=http://127.0.0.1:PROXY, a plain-HTTP mirror
                                               succeeds, and the proxy logged GET http://127.0.0.1:...

The binary runs with a minimal environment (HOME, CUDNNUP_HOME and XDG folders in the temporary
folder, PATH, NO_COLOR), so the caller's proxy or CA variables never decide a case.
One line a case, "ok: ..." or "FAIL: ...". Exit 0 all passed, 1 one failed, 77 skipped (no openssl,
or a build without the download code).
Usage: https_download_test.py CUDNNUP [--keep]   (--keep leaves the temporary folder, and says where)
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

SUPPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support")
RELEASE = "9.19.0"
SKIP = 77


# --- Certificates -------------------------------------------------------------------------------

def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(folder, name):
    """A self-signed CA: folder/name.pem and folder/name.key."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2", "-subj", f"/CN=cudnnup test {name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", cwd=folder)
    return os.path.join(folder, f"{name}.pem")


def make_server_cert(folder, ca):
    """server.pem/server.key for 127.0.0.1 (an IP SAN: libcurl checks IPs against IP SANs only) and localhost."""
    with open(os.path.join(folder, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-sha256", "-subj", "/CN=127.0.0.1",
            "-keyout", "server.key", "-out", "server.csr", cwd=folder)
    openssl("x509", "-req", "-sha256", "-days", "2", "-in", "server.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-extfile", "server.ext", "-out", "server.pem", cwd=folder)
    return os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")


def hashed_dir(folder, ca_pem):
    """A CApath folder as a distribution makes one: the CA and a <subject hash>.0 link to it
    (`openssl rehash`). OpenSSL looks certificates up in it by that name only."""
    os.makedirs(folder)
    shutil.copy(ca_pem, os.path.join(folder, "test-ca.pem"))
    openssl("rehash", folder, cwd=folder)
    links = [n for n in os.listdir(folder) if n.endswith(".0")]
    if len(links) != 1:
        raise RuntimeError(f"openssl rehash made {links} in {folder}, not one <hash>.0")
    return folder


# --- The mirror and the proxy -------------------------------------------------------------------

def make_mirror(folder):
    """NVIDIA's layout, one release: redistrib_9.19.0.json. Its sha256 is random, so a listing that
    shows it can only have come from this mirror (list --available reads no archive)."""
    os.makedirs(folder)
    sha = secrets.token_hex(32)
    manifest = {"release_label": RELEASE, "release_date": "2026-01-01", "release_product": "cudnn",
                "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "version": RELEASE + ".99",
                          "cuda_variant": ["13"],
                          "linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/cudnn-test.tar.xz",
                                                      "sha256": sha, "md5": "0", "size": "1234"}}}}
    with open(os.path.join(folder, f"redistrib_{RELEASE}.json"), "w") as f:
        json.dump(manifest, f)
    return sha


class Service:
    """One of the support servers as a child process; .port once it has written its port file."""

    def __init__(self, tmp, name, script, args):
        self.log = os.path.join(tmp, name + ".log")
        port_file = os.path.join(tmp, name + ".port")
        open(self.log, "w").close()
        self.proc = subprocess.Popen([sys.executable, os.path.join(SUPPORT, script), "--port-file", port_file,
                                      "--log", self.log, "--lifetime", "300", *args])
        for _ in range(200):
            if os.path.exists(port_file) or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(port_file):
            self.stop()
            raise RuntimeError(f"{script} did not start (exit {self.proc.poll()})")
        with open(port_file) as f:
            self.port = int(f.read())

    def log_size(self):
        return os.path.getsize(self.log)

    def log_since(self, offset):
        with open(self.log) as f:
            f.seek(offset)
            return f.read().splitlines()

    def wait_for_line(self, offset, prefix, seconds=3.0):
        """The log since offset, once a line starts with prefix or seconds have passed: the server
        logs a refused handshake in its own thread, maybe after the client has already exited."""
        deadline = time.monotonic() + seconds
        while True:
            lines = self.log_since(offset)
            if any(line.startswith(prefix) for line in lines) or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


# --- Running cudnnup ----------------------------------------------------------------------------

def base_env(tmp):
    home = os.path.join(tmp, "home")
    env = {"HOME": home, "CUDNNUP_HOME": os.path.join(home, "store"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    for var, sub in [("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_STATE_HOME", ".local/state")]:
        env[var] = os.path.join(home, sub)
    return env


class Run:
    """One `cudnnup --json list --available --mirror URL`, and what the mirror's log gained meanwhile."""

    def __init__(self, binary, mirror_url, env, server):
        offset = server.log_size()
        p = subprocess.run([binary, "--json", "list", "--available", "--mirror", mirror_url], env=env,
                           capture_output=True, text=True, timeout=120)
        self.code, self.stderr = p.returncode, p.stderr.strip()
        try:
            self.doc = json.loads(p.stdout)
        except ValueError:
            self.doc = {}
        self.served = server.log_since(offset)
        if self.doc.get("listed_by") != "mirror":
            self.served = server.wait_for_line(offset, "TLS handshake failed")

    def note(self):
        return self.doc.get("note") or self.doc.get("error", {}).get("message") or ""

    def listed(self, sha):
        """'' when cudnnup listed the mirror's release with the manifest's sha256, else why not."""
        if self.code != 0 or self.doc.get("kind") != "available":
            return f"exit {self.code}, no listing"
        if self.doc.get("listed_by") != "mirror":
            return f"the mirror was not read: {self.note()}"
        for r in self.doc.get("releases", []):
            if r.get("release") == RELEASE:
                if r.get("problem"):
                    return f"the index was read, the manifest not: {r['problem']}"
                if any(a.get("sha256") == sha for a in r.get("archives", [])):
                    return ""
        return f"release {RELEASE} with this mirror's sha256 is not in the listing"

    def rejected_certificate(self):
        """'' when the download failed on the certificate and no request reached the server, else why not."""
        if self.doc.get("listed_by") == "mirror":
            return "the download succeeded: the throw-away CA was trusted"
        if "certificate" not in self.note().lower():
            return f"it failed, but not on a certificate: {self.note() or self.stderr}"
        if any(line.startswith("GET ") for line in self.served):
            return f"the server answered a request: {self.served}"
        if not any(line.startswith("TLS handshake failed") for line in self.served):
            return "the server saw no failed handshake"
        return ""

    def evidence(self):
        """What the failure line adds to its reason: the exit code, stderr, what the server logged."""
        parts = [f"exit {self.code}", f"stderr: {self.stderr or '(empty)'}"]
        parts.append(f"server log: {' | '.join(self.served) or '(nothing)'}")
        return "; ".join(parts)


def supports_download(binary, env):
    """False for a build without the install code: list --available says so instead of listing."""
    p = subprocess.run([binary, "--json", "list", "--available", "--mirror", "/nonexistent"], env=env,
                       capture_output=True, text=True, timeout=60)
    return "not available in this build" not in p.stdout + p.stderr


# --- The cases ----------------------------------------------------------------------------------

class Cases:
    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.failed = binary, tmp, 0
        self.ca = make_ca(tmp, "ca")
        self.other_ca = make_ca(tmp, "unrelated-ca")  # trusted in case B, signed nothing here
        cert, key = make_server_cert(tmp, "ca")
        self.ca_dir = hashed_dir(os.path.join(tmp, "ca-dir"), self.ca)
        self.empty_dir = os.path.join(tmp, "empty-dir")
        os.makedirs(self.empty_dir)
        self.sha = make_mirror(os.path.join(tmp, "mirror"))
        self.services = []
        try:
            self.tls = self.start("tls-mirror", "mirror_server.py",
                                  ["--root", os.path.join(tmp, "mirror"), "--tls-cert", cert, "--tls-key", key])
            self.plain = self.start("plain-mirror", "mirror_server.py", ["--root", os.path.join(tmp, "mirror")])
            self.proxy = self.start("proxy", "connect_proxy.py", [])
        except Exception:
            self.stop()
            raise

    def start(self, name, script, args):
        self.services.append(Service(self.tmp, name, script, args))
        return self.services[-1]

    def stop(self):
        for s in self.services:
            s.stop()

    def url(self, host="127.0.0.1", server=None):
        return f"{'http' if server is self.plain else 'https'}://{host}:{(server or self.tls).port}/"

    def run(self, extra_env, host="127.0.0.1", server=None):
        return Run(self.binary, self.url(host, server), dict(base_env(self.tmp), **extra_env), server or self.tls)

    @staticmethod
    def trusted(run, sha, source):
        """run.listed(sha), naming the CA source that went unused when the certificate was refused."""
        why_not = run.listed(sha)
        if why_not and "certificate" in run.note().lower():
            return f"the server's certificate was refused: the CA in {source} was not used; " + why_not
        return why_not

    def report(self, case, why_not, run):
        if why_not:
            self.failed += 1
            print(f"FAIL: {case}: {why_not} ({run.evidence()})")
        else:
            print(f"ok: {case}")

    def case_a(self):
        r = self.run({"SSL_CERT_FILE": self.ca})
        self.report("A SSL_CERT_FILE=ca.pem: the mirror is read over HTTPS", self.trusted(r, self.sha, "SSL_CERT_FILE"), r)

    def case_b(self):
        for label, env in [("B1 no CA variable (the system's bundle only)", {}),
                           ("B2 SSL_CERT_FILE=an unrelated CA, SSL_CERT_DIR=an empty folder",
                            {"SSL_CERT_FILE": self.other_ca, "SSL_CERT_DIR": self.empty_dir})]:
            r = self.run(env)
            self.report(f"{label}: the server's certificate is refused", r.rejected_certificate(), r)

    def case_c(self):
        r = self.run({"SSL_CERT_DIR": self.ca_dir})
        self.report("C SSL_CERT_DIR=a folder with the CA as <hash>.0: the mirror is read over HTTPS",
                    self.trusted(r, self.sha, "SSL_CERT_DIR"), r)

    def case_d(self):
        # libcurl sends every host through the proxy unless no_proxy names it (no implicit
        # localhost exception in 7.88); localhost also proves the name goes to the proxy unresolved.
        offset = self.proxy.log_size()
        r = self.run({"SSL_CERT_FILE": self.ca, "https_proxy": f"http://127.0.0.1:{self.proxy.port}"}, host="localhost")
        want = f"CONNECT localhost:{self.tls.port}"
        tunnels = self.proxy.log_since(offset)
        why_not = self.trusted(r, self.sha, "SSL_CERT_FILE")
        if want not in tunnels:
            why_not = f"the proxy logged {tunnels or 'nothing'}, not {want!r}" + (f"; and {why_not}" if why_not else "")
        elif why_not:
            why_not = f"the proxy tunnelled ({want}), but {why_not}"
        self.report("D https_proxy=http://127.0.0.1:PROXY to https://localhost: read through a CONNECT tunnel", why_not, r)

    def case_e(self):
        offset = self.proxy.log_size()
        r = self.run({"http_proxy": f"http://127.0.0.1:{self.proxy.port}"}, server=self.plain)
        want = f"GET {self.url(server=self.plain)}"
        forwarded = self.proxy.log_since(offset)
        why_not = r.listed(self.sha) or ("" if want in forwarded else f"the proxy logged {forwarded or 'nothing'}, not {want!r}")
        self.report("E http_proxy=http://127.0.0.1:PROXY to an http:// mirror: read through the proxy", why_not, r)


def main():
    args = [a for a in sys.argv[1:] if a != "--keep"]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary = os.path.abspath(args[0])
    if not shutil.which("openssl"):
        print("skip: no openssl command to make the certificates")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="cudnnup-https-")
    try:
        if not supports_download(binary, base_env(tmp)):
            print(f"skip: {binary} was built without the download code")
            return SKIP
        cases = Cases(binary, tmp)
        try:
            for case in (cases.case_a, cases.case_b, cases.case_c, cases.case_d, cases.case_e):
                case()
        finally:
            cases.stop()
        return 1 if cases.failed else 0
    finally:
        if "--keep" in sys.argv:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
