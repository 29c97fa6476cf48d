#!/usr/bin/env python3
"""A tiny NVIDIA-redist-like mirror for cudnnup's download tests, on 127.0.0.1 only.

Serves files under --root with HTTP Range support. Faults for tests:
  --drop-after N   the first GET of an archive sends N body bytes, then drops the connection
  --corrupt NAME   serves NAME with its bytes altered (same size), so its sha256 is wrong
  --no-index       answers 404 for a directory instead of an index page of its files
A directory is answered with an HTML index page like NVIDIA's redist directory, one <a> a file.
Writes the chosen port to --port-file, logs one line per request to --log, and stops by itself
after --lifetime seconds (or on GET /__quit), so a failed test never leaves it running.
With --tls-cert FILE --tls-key FILE it serves HTTPS instead (tests/packaging/https_download_test.py);
a client that rejects the certificate leaves a "TLS handshake failed" line in --log, no GET line.
"""
import argparse
import http.server
import os
import ssl
import threading


class TlsServer(http.server.ThreadingHTTPServer):
    """HTTPS: the handshake runs in the request's thread, so a client that stalls or rejects
    the certificate never blocks accept() for the next one."""

    def __init__(self, address, handler, context, log):
        super().__init__(address, handler)
        self.context = context
        self.log = log

    def get_request(self):
        sock, addr = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def finish_request(self, request, client_address):
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError) as e:
            self.log(f"TLS handshake failed: {e}\n")
            return
        super().finish_request(request, client_address)


def tls_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--lifetime", type=float, default=60)
    p.add_argument("--drop-after", type=int, default=-1)
    p.add_argument("--corrupt", default="")
    p.add_argument("--no-index", action="store_true")
    p.add_argument("--tls-cert", default="", help="PEM certificate (chain): serve HTTPS")
    p.add_argument("--tls-key", default="", help="PEM private key of --tls-cert")
    a = p.parse_args()
    if bool(a.tls_cert) != bool(a.tls_key):
        p.error("--tls-cert and --tls-key go together")
    state = {"dropped": False}
    lock = threading.Lock()

    def log_line(line):
        with lock, open(a.log, "a") as log:
            log.write(line)

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            rng = self.headers.get("Range", "")
            log_line(f"GET {self.path} range={rng}\n")
            if self.path == "/__quit":
                self.send_response(200)
                self.end_headers()
                threading.Thread(target=server.shutdown, daemon=True).start()
                return
            path = os.path.normpath(os.path.join(a.root, self.path.lstrip("/")))
            if path.startswith(os.path.abspath(a.root)) and os.path.isdir(path) and not a.no_index:
                links = "".join(f"<a href='{n}'>{n}</a><br>\n" for n in sorted(os.listdir(path)))
                body = f"<html><head><title>Index of {self.path}</title></head><body>\n{links}</body></html>\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if not path.startswith(os.path.abspath(a.root)) or not os.path.isfile(path):
                self.send_error(404)
                return
            with open(path, "rb") as f:
                data = f.read()
            if a.corrupt and os.path.basename(path) == a.corrupt:
                data = bytes(b ^ 0x5A for b in data[:64]) + data[64:]
            start = 0
            if rng.startswith("bytes="):
                start = int(rng[6:].split("-")[0] or 0)
                if start >= len(data):
                    self.send_error(416)
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            body = data[start:]
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            archive = path.endswith((".tar.xz", ".zip", ".tgz"))
            if archive and a.drop_after >= 0 and not state["dropped"]:
                state["dropped"] = True
                self.wfile.write(body[: a.drop_after])
                self.wfile.flush()
                self.connection.shutdown(2)  # drop mid-download
                self.close_connection = True
                return
            self.wfile.write(body)

    if a.tls_cert:
        server = TlsServer(("127.0.0.1", 0), Handler, tls_context(a.tls_cert, a.tls_key), log_line)
    else:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Timer(a.lifetime, server.shutdown).start()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, a.port_file)
    server.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
