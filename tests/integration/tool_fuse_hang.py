# A FUSE server that hangs as a stuck sshfs does: it answers INIT, ENOENT
# to every LOOKUP but one of the name "hang", which it reads and never
# answers (nor its INTERRUPT).  Root only (mount(2) of /dev/fuse).
# Usage: tool_fuse_hang.py MOUNTPOINT; prints "mounted" once mounted, and
# ends when killed (the kernel then aborts the connection: every call
# waiting on it returns).  t_learn_attack.sh.
import ctypes
import os
import struct
import sys

mnt = sys.argv[1]
fd = os.open('/dev/fuse', os.O_RDWR)
libc = ctypes.CDLL(None, use_errno=True)
opts = f'fd={fd},rootmode=40000,user_id=0,group_id=0,allow_other'.encode()
if libc.mount(b'hangfs', mnt.encode(), b'fuse', 6, opts) != 0:
    sys.exit('mount: ' + os.strerror(ctypes.get_errno()))
print('mounted', flush=True)


def reply(unique, err, body=b''):
    os.write(fd, struct.pack('<IiQ', 16 + len(body), err, unique) + body)


while True:
    try:
        buf = os.read(fd, 1 << 17)
    except OSError as e:
        if e.errno == 19:   # ENODEV: unmounted
            break
        continue
    ln, op, unique, node = struct.unpack_from('<IIQQ', buf)
    body = buf[40:ln]
    if op == 26:    # INIT: protocol 7.31
        reply(unique, 0, struct.pack('<IIIIHHIIHHII', 7, 31, 0, 0, 0, 0, 4096, 0, 0, 0, 0, 0) +
              b'\0' * 24)
    elif op == 1:   # LOOKUP
        if body.split(b'\0')[0] != b'hang':
            reply(unique, -2)
    elif op == 3:   # GETATTR of the root
        attr = struct.pack('<QQQQQQIIIIIIIIII', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0o40755, 2, 0, 0, 0,
                           4096, 0)
        reply(unique, 0, struct.pack('<QII', 1, 0, 0) + attr)
    elif op != 36:  # all but INTERRUPT, which a hung server never reads
        reply(unique, -38)
