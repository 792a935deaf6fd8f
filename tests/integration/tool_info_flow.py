#!/usr/bin/python3
"""tool_info_flow MAP PROG ARGS...: a caller of bwrap's helper protocol.

Runs PROG ARGS, where the words {info} and {block} stand for the fds of
--info-fd and of --block-fd or --userns-block-fd.  Reads the info fd to
its end, writes MAP (a uid and gid map, "\\n" for newlines, or "-" for
none) for the child-pid it names, then releases the block fd.  Prints
"info: EOF", then "exit STATUS OUTPUT" (COMMAND's stdout on one line).
Every wait is bounded (10 s): a sandbox that keeps the info fd open until
it is released deadlocks such a caller, which then prints "info: no EOF"
and releases it all the same, so that nothing is left behind.
"""
import json
import os
import select
import subprocess
import sys
import time

LIMIT = 10


def read_to_eof(fd):
    data, end = b"", time.monotonic() + LIMIT
    while True:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return data, False
        chunk = os.read(fd, 4096)
        if not chunk:
            return data, True
        data += chunk


def write_maps(pid, text):
    text = text.replace("\\n", "\n")
    with open("/proc/%d/setgroups" % pid, "w") as f:
        f.write("deny")
    for name in ("uid_map", "gid_map"):
        with open("/proc/%d/%s" % (pid, name), "w") as f:
            f.write(text)


def main():
    mapping, command = sys.argv[1], sys.argv[2:]
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    words = {"{info}": str(info_w), "{block}": str(block_r)}
    proc = subprocess.Popen([words.get(w, w) for w in command], pass_fds=(info_w, block_r),
                            stdout=subprocess.PIPE)
    os.close(info_w)
    os.close(block_r)
    info, eof = read_to_eof(info_r)
    print("info: EOF" if eof else "info: no EOF")
    if eof and mapping != "-":
        write_maps(json.loads(info)["child-pid"], mapping)
    os.write(block_w, b"x")
    os.close(block_w)
    try:
        out = proc.communicate(timeout=LIMIT)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0]
    print("exit %d %s" % (proc.returncode, " ".join(out.decode().split())))


main()
