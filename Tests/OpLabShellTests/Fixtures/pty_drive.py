#!/usr/bin/env python3
"""Runs a program on a pseudo-terminal and types keystroke bursts into it.

Usage: pty_drive.py PROGRAM [ARG...] -- BURST...   (bursts use Python escapes: \\t, \\r, \\x03, \\x1b[A;
the burst <KILL> sends SIGKILL, as a crash would; <TERM> sends SIGTERM; <SLEEP N> reads the
output for N seconds, for a command that takes long; <WAIT TEXT> reads the output until TEXT
has appeared (at most 120 s); <NEXT TEXT> reads it until TEXT has appeared since the last
burst was typed (at most 30 s), for text printed again, such as a prompt; <FILE PATH> reads it
until the file PATH exists (at most 120 s), for a test to say when to go on; a burst that starts
with <HOLD> is typed and then nothing is read for 2 s, so a long output fills the terminal
and the program is left blocked in the middle of writing it; one that starts with <QUICK> is
typed and read for only 0.05 s, so the next burst (a signal) reaches a command that has just
begun)
Prints everything the program wrote, then a last line "exit N".
Used by TerminalTests: the child gets the pty as its controlling terminal, so Ctrl-C
reaches it as SIGINT exactly as in a real terminal.
"""
import codecs, fcntl, os, pty, select, struct, sys, termios, time

args = sys.argv[1:]
split = args.index("--") if "--" in args else 1
program, program_args, bursts = args[0], args[1:split], args[split + 1 if "--" in args else 1:]
pid, fd = pty.fork()
if pid == 0:
    # PTY_ROWS and PTY_COLS give the terminal a size (a fresh pty has none: 0 x 0).
    rows, cols = int(os.environ.get("PTY_ROWS", "0")), int(os.environ.get("PTY_COLS", "0"))
    if rows and cols:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execv(program, [program] + program_args)

output = b""
typed_at = 0  # len(output) when the last burst was typed, for <NEXT TEXT>
def drain(seconds):
    global output
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            output += chunk

drain(1.0)
for burst in bursts:
    if burst == "<KILL>":
        os.kill(pid, 9)
        break
    if burst == "<TERM>":
        os.kill(pid, 15)
        break
    if burst.startswith("<FILE ") and burst.endswith(">"):
        path = burst[len("<FILE "):-1]
        end = time.time() + 120
        while not os.path.exists(path) and time.time() < end:
            drain(0.05)
        continue
    if burst.startswith("<WAIT ") and burst.endswith(">"):
        text = burst[len("<WAIT "):-1].encode("utf-8")
        end = time.time() + 120
        while text not in output and time.time() < end:
            drain(0.05)
        continue
    if burst.startswith("<NEXT ") and burst.endswith(">"):
        text = burst[len("<NEXT "):-1].encode("utf-8")
        end = time.time() + 30
        while text not in output[typed_at:] and time.time() < end:
            drain(0.05)
        continue
    if burst.startswith("<SLEEP ") and burst.endswith(">"):
        drain(float(burst[len("<SLEEP "):-1]))
        continue
    hold = burst.startswith("<HOLD>")
    quick = burst.startswith("<QUICK>")
    if hold:
        burst = burst[len("<HOLD>"):]
    if quick:
        burst = burst[len("<QUICK>"):]
    typed_at = len(output)
    os.write(fd, codecs.decode(burst, "unicode_escape").encode("utf-8"))
    if hold:
        time.sleep(2.0)
    else:
        drain(0.05 if quick else 0.4)
deadline = time.time() + 10
status = None
while time.time() < deadline:
    done, raw = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(raw)
        break
    drain(0.1)
if status is None:
    os.kill(pid, 9)
    status = "killed"
drain(0.2)
sys.stdout.write(output.decode("utf-8", "replace"))
sys.stdout.write("\nexit %s\n" % status)
