#!/usr/bin/env python3
"""Clients of hutch's proxy for the --allow-net tests, run inside the
sandbox.  The proxy is the one HTTP_PROXY names.  Every socket has a
timeout, so nothing here waits for ever.

  get URL             urllib through the proxy: the body
  status URL          a plain request through the proxy: the status line,
                      then the body's first line
  echo HOST PORT N    a CONNECT tunnel to an echo server: N random bytes
                      sent and read back; "echo ok N" if identical
  socks HOST PORT N   the same through SOCKS5
  direct HOST PORT    connect without the proxy: "connected" or the errno
  oversize HOST PORT  a request head of 64 KiB: the status line
  slowloris HOST PORT a head sent a byte every 0.5 s: the status line
  transfer URL N      N bytes through the proxy, checked: "transfer ok N"
  hold HOST PORT      a CONNECT tunnel held open, "held" once it is up
  flood N             N connections to the proxy at once, sending nothing:
                      the status lines of those answered within 2 s
  pipeline HOST PORT  two plain requests in one write, the second for
                      another Host; then what came back, to EOF"""
import hashlib
import os
import selectors
import socket
import sys
import threading
import time
import urllib.request

PATTERN = bytes(range(256)) * 4096


def proxy_address():
    url = os.environ["HTTP_PROXY"]
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    return host.strip("[]"), int(port.rstrip("/"))


def proxy_socket(timeout=30):
    s = socket.create_connection(proxy_address(), timeout=timeout)
    return s


def read_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode(errors="replace"), rest


def status_line(s):
    head, rest = read_head(s)
    return head.split("\r\n", 1)[0], rest


def get(url):
    os.environ.pop("no_proxy", None)
    os.environ.pop("NO_PROXY", None)
    with urllib.request.urlopen(url, timeout=30) as r:
        sys.stdout.write(r.read().decode())


def status(url):
    s = proxy_socket()
    s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % url.encode())
    line, rest = status_line(s)
    while b"\n" not in rest:
        more = s.recv(4096)
        if not more:
            break
        rest += more
    print(line)
    print(rest.split(b"\n", 1)[0].decode(errors="replace"))


def tunnel(host, port):
    s = proxy_socket()
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host.encode(), port,
                                                               host.encode(), port))
    line, rest = status_line(s)
    if " 200 " not in line + " ":
        sys.exit("CONNECT answered: " + line)
    return s, rest


def socks_tunnel(host, port):
    s = proxy_socket()
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        sys.exit("no SOCKS5 method")
    name = host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
    reply = b""
    while len(reply) < 10:
        chunk = s.recv(10 - len(reply))
        if not chunk:
            break
        reply += chunk
    if reply[:2] != b"\x05\x00":
        sys.exit("SOCKS5 reply %r" % reply)
    return s, b""


def echo_through(s, rest, n):
    data = os.urandom(n)
    got = bytearray(rest)

    def sender():
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    t = threading.Thread(target=sender)
    t.start()
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    t.join()
    ok = hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
    print("echo %s %d" % ("ok" if ok else "MISMATCH", len(got)))


def direct(host, port):
    try:
        socket.create_connection((host, port), timeout=5).close()
        print("connected")
    except OSError as e:
        print(e.__class__.__name__, e.errno)


def oversize(host, port):
    s = proxy_socket()
    s.sendall(b"GET http://%s:%d/hello HTTP/1.1\r\nX-Big: " % (host.encode(), port))
    try:
        s.sendall(b"a" * 65536 + b"\r\n\r\n")
    except OSError:
        pass
    print(status_line(s)[0])


def slowloris(host, port):
    s = proxy_socket()
    req = b"GET http://%s:%d/hello HTTP/1.1\r\nX-Slow: " % (host.encode(), port)
    s.sendall(req)
    s.settimeout(0.5)
    start = time.time()
    while time.time() - start < 30:
        try:
            data = s.recv(4096)
            head = data.decode(errors="replace").split("\r\n", 1)[0]
            print("%s after %.0fs" % (head, time.time() - start))
            return
        except socket.timeout:
            pass
        try:
            s.sendall(b"a")
        except OSError as e:
            print("send failed", e.errno)
            return
    print("never answered")


def transfer(url, n):
    host = url.split("//", 1)[1].split("/", 1)[0]
    s = proxy_socket(timeout=120)
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.encode(), host.encode()))
    line, rest = status_line(s)
    digest = hashlib.sha256(rest)
    got = len(rest)
    while got < n:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        digest.update(chunk)
        got += len(chunk)
    want = hashlib.sha256()
    left = n
    while left > 0:
        want.update(PATTERN[:min(left, len(PATTERN))])
        left -= min(left, len(PATTERN))
    ok = got == n and digest.digest() == want.digest()
    print("transfer %s %d (%s)" % ("ok" if ok else "BAD", got, line))


def hold(host, port):
    s, _ = tunnel(host, port)
    print("held", flush=True)
    time.sleep(3600)


def flood(n):
    socks = [proxy_socket() for _ in range(n)]
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    deadline = time.time() + 2
    while time.time() < deadline and sel.get_map():
        for key, _ in sel.select(timeout=max(0, deadline - time.time())):
            try:
                data = key.fileobj.recv(4096)
            except OSError:
                data = b""
            if data:
                print(data.split(b"\r\n", 1)[0].decode(errors="replace"))
            sel.unregister(key.fileobj)


def pipeline(host, port):
    s = proxy_socket()
    s.sendall(("GET http://%s:%d/first HTTP/1.1\r\nHost: %s\r\n"
               "Content-Length: 4\r\n\r\nbody"
               "GET /second HTTP/1.1\r\nHost: other.example\r\n\r\n"
               % (host, port, host)).encode())
    s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    sys.stdout.write(got.decode(errors="replace").replace("\r\n", "\n"))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "get":
        get(args[0])
    elif cmd == "status":
        status(args[0])
    elif cmd == "echo":
        echo_through(*tunnel(args[0], int(args[1])), int(args[2]))
    elif cmd == "socks":
        echo_through(*socks_tunnel(args[0], int(args[1])), int(args[2]))
    elif cmd == "direct":
        direct(args[0], int(args[1]))
    elif cmd == "oversize":
        oversize(args[0], int(args[1]))
    elif cmd == "slowloris":
        slowloris(args[0], int(args[1]))
    elif cmd == "transfer":
        transfer(args[0], int(args[1]))
    elif cmd == "hold":
        hold(args[0], int(args[1]))
    elif cmd == "flood":
        flood(int(args[0]))
    elif cmd == "pipeline":
        pipeline(args[0], int(args[1]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
