"""A raw protocol speaker that answers hello, shrinks its input pipe to one page
(``F_SETPIPE_SZ``) and never reads again: the referee's next long write fills the pipe,
and a write without a deadline hung the referee for ever."""

import fcntl
import os
import time

F_SETPIPE_SZ = 1031
line = b""
while not line.endswith(b"\n"):
    line += os.read(0, 1)
fcntl.fcntl(0, F_SETPIPE_SZ, 4096)
os.write(1, b'{"type":"hello","name":"deaf","version":"1.0.0","protocol":1}\n')
while True:
    time.sleep(3600)
