#!/usr/bin/env python3
"""Servers on the host's loopback for the --allow-net tests, never on
another address: an HTTP server and a TCP echo server, each on
127.0.0.1 and ::1 at one port.  Prints "HTTP_PORT ECHO_PORT" once both
listen, then serves until killed (by pid).

HTTP paths: /hello (a line naming the port), /bytes/N (N bytes of a
fixed pattern, sent in 1 MiB writes), /headers (the request head it got,
as the server saw it)."""
import http.server
import socket
import socketserver
import sys
import threading

PATTERN = bytes(range(256)) * 4096  # 1 MiB


def both_families(make, handler):
    """Two servers, IPv4 then IPv6, on one free port of both loopbacks."""
    for _ in range(50):
        v4 = make(("127.0.0.1", 0), handler, socket.AF_INET)
        port = v4.server_address[1]
        try:
            v6 = make(("::1", port), handler, socket.AF_INET6)
        except OSError:
            v4.server_close()
            continue
        return port, (v4, v6)
    sys.exit("no port free on both 127.0.0.1 and ::1")


class Threading(socketserver.ThreadingMixIn):
    daemon_threads = True
    allow_reuse_address = True


def tcp_server(addr, handler, family):
    class Server(Threading, socketserver.TCPServer):
        address_family = family
    return Server(addr, handler)


def http_server(addr, handler, family):
    class Server(Threading, http.server.HTTPServer):
        address_family = family
    return Server(addr, handler)


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            data = self.request.recv(65536)
            if not data:
                return
            self.request.sendall(data)


class Http(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, body, length=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()

    def do_GET(self):
        if self.path == "/hello":
            body = b"hello from port %d\n" % self.server.server_address[1]
            self.reply(body)
            self.wfile.write(body)
        elif self.path.startswith("/bytes/"):
            n = int(self.path[len("/bytes/"):])
            self.reply(None, n)
            while n > 0:
                chunk = PATTERN[:min(n, len(PATTERN))]
                self.wfile.write(chunk)
                n -= len(chunk)
        elif self.path == "/headers":
            body = (self.requestline + "\n" + str(self.headers)).encode()
            self.reply(body)
            self.wfile.write(body)
        else:
            self.send_error(404)


def main():
    http_port, https = both_families(http_server, Http)
    echo_port, echos = both_families(tcp_server, Echo)
    for server in https + echos:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(http_port, echo_port, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
