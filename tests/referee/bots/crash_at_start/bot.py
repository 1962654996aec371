"""Raw protocol speaker: reads the referee's hello, then exits with status 4 without answering."""

import sys

sys.stdin.buffer.readline()
sys.stderr.write("crash-at-start: refusing to say hello\n")
sys.stderr.flush()
sys.exit(4)
