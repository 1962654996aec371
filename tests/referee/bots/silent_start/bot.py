"""Raw protocol speaker: reads the referee's hello and never answers (sleeps)."""

import sys
import time

sys.stdin.buffer.readline()
while True:
    time.sleep(3600)
