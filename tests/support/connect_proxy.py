#!/usr/bin/env python3
"""A tiny HTTP proxy on 127.0.0.1 for cudnnup's download tests: proves a download went through it.

  CONNECT host:port            a tunnel (https_proxy): 200, then bytes both ways, unread
  GET http://host:port/path    an absolute-URI request (http_proxy): forwarded as HTTP/1.0

It reaches loopback hosts only (127.0.0.1, localhost, ::1), so a test can never leak out of the
machine through it; any other target is answered 403. One line a request goes to --log:
"CONNECT 127.0.0.1:4443", "GET http://127.0.0.1:8080/x", "REFUSED CONNECT example.com:443".
Writes its port to --port-file (like mirror_server.py) and stops by itself after --lifetime seconds.
"""
import argparse
import os
import socket
import socketserver
import threading
import urllib.parse

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def pump(src, dst):
    """Copies src to dst until src ends, then half-closes dst so the other side sees the end."""
    try:
        while True:
            chunk = src.recv(65536)
            if not chunk:
                break
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay(client, upstream):
    """Both directions at once; returns when both have ended."""
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()


def read_head(rfile):
    """The request line and the header lines (without the blank line), as text."""
    line = rfile.readline(65537).decode("latin-1").rstrip("\r\n")
    headers = []
    while True:
        h = rfile.readline(65537).decode("latin-1")
        if h in ("\r\n", "\n", ""):
            break
        headers.append(h.rstrip("\r\n"))
    return line, headers


def split_host_port(authority, default_port):
    """'host:port', '[::1]:port' or 'host' -> (host, port)."""
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        return host, int(rest.lstrip(":") or default_port)
    host, sep, port = authority.rpartition(":")
    return (host, int(port)) if sep else (authority, default_port)


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        line, headers = read_head(self.rfile)
        parts = line.split()
        if len(parts) != 3:
            return
        method, target, _ = parts
        if method == "CONNECT":
            self.tunnel(target)
        elif target.startswith("http://"):
            self.forward(method, target, headers)
        else:
            self.answer(400, "a proxy takes CONNECT or an absolute http:// URI")

    def answer(self, code, reason):
        self.wfile.write(f"HTTP/1.1 {code} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())

    def open_upstream(self, what, host, port):
        """The upstream socket, or None after answering 403/502 and logging why."""
        if host not in LOOPBACK:
            self.server.log(f"REFUSED {what}\n")
            self.answer(403, "this test proxy reaches loopback hosts only")
            return None
        try:
            return socket.create_connection((host, port), timeout=10)
        except OSError as e:
            self.server.log(f"UNREACHABLE {what}: {e}\n")
            self.answer(502, "upstream unreachable")
            return None

    def tunnel(self, authority):
        host, port = split_host_port(authority, 443)
        upstream = self.open_upstream(f"CONNECT {authority}", host, port)
        if not upstream:
            return
        self.server.log(f"CONNECT {authority}\n")
        self.wfile.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        self.wfile.flush()
        with upstream:
            upstream.settimeout(None)
            relay(self.connection, upstream)

    def forward(self, method, url, headers):
        u = urllib.parse.urlsplit(url)
        upstream = self.open_upstream(f"{method} {url}", u.hostname or "", u.port or 80)
        if not upstream:
            return
        self.server.log(f"{method} {url}\n")
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        # HTTP/1.0 and Connection: close, so the answer ends when upstream closes: no chunking to parse.
        kept = [h for h in headers if not h.lower().startswith(("proxy-", "connection:", "keep-alive:"))]
        head = f"{method} {path} HTTP/1.0\r\n" + "".join(h + "\r\n" for h in kept) + "Connection: close\r\n\r\n"
        with upstream:
            upstream.settimeout(None)
            upstream.sendall(head.encode("latin-1"))
            pump(upstream, self.connection)  # a GET has no body to send up


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, log_path):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.log_path = log_path

    def log(self, line):
        with self.lock, open(self.log_path, "a") as f:
            f.write(line)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--lifetime", type=float, default=60)
    a = p.parse_args()
    server = Server(a.log)
    threading.Timer(a.lifetime, server.shutdown).start()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, a.port_file)
    server.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
