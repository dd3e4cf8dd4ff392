# The virtual board's REPL (MicroPython unix port): a Pico's boot sequence and its REPL, byte
# for byte where mpremote, Thonny and rhinoref depend on it (after MicroPython's
# shared/runtime/pyexec.c and shared/readline/readline.c, rewritten in Python).
#
#     vb_repl.boot("friendly", "power")    # boot.py, main.py, then the REPL, forever
#
# Friendly REPL: banner, ">>> " prompt with line editing (arrows, home/end, backspace,
# history of 8, auto-indent), "... " continuation, Ctrl-C cancels a line, Ctrl-D on an empty
# line soft-resets, Ctrl-E paste mode, Ctrl-A raw REPL, Ctrl-B banner. No tab completion.
# Raw REPL: "raw REPL; CTRL-B to exit\r\n>", code then Ctrl-D -> "OK", output, "\x04",
# error output, "\x04", ">"; Ctrl-D on an empty line soft-resets (boot.py only, no main.py);
# raw-paste (Ctrl-E "A" Ctrl-A) with a 128-byte flow-control window.
# A soft reset prints "MPY: soft reboot" and ends this process: the host starts a fresh one,
# so the heap and every module are new, as on the board.

import sys
import vb_hw

_in = sys.stdin.buffer
_out = sys.stdout.buffer
_one = bytearray(1)
FORCED = 0x100
_WINDOW = 128
G = {"__name__": "__main__"}
mode = "friendly"
_hist = []
_auto = [0]  # auto-indent state: 1 enabled, 2 just added


def out(b):
    _out.write(b)


def rx():
    """One byte of serial input. A KeyboardInterrupt while waiting counts as Ctrl-C."""
    while True:
        try:
            if vb_hw.wdt_deadline >= 0 and vb_hw.speed > 0:
                _wait_input_watched()
            n = _in.readinto(_one)
        except KeyboardInterrupt:
            return 3
        if not n:
            vb_hw.lost = True
            raise SystemExit(99)
        return _one[0]


def _wait_input_watched():
    # The RP2040's watchdog keeps counting at the prompt: wait for input or until it bites.
    import vb_select

    p = vb_select._sel.poll()
    p.register(_in, vb_select.POLLIN)
    while True:
        left = vb_hw.wdt_deadline - vb_hw.now_us()
        ms = int(left / 1000 / vb_hw.speed) + 1
        if p.poll(ms if ms > 0 else 1):
            return


# Execution ------------------------------------------------------------------------------------


def _print_exc(e):
    # As the board prints it: frames of the virtual board's own modules are C on a Pico.
    try:
        import io

        s = io.StringIO()
        sys.print_exception(e, s)
        lines = s.getvalue().split("\n")
        keep = [ln for ln in lines if not ln.startswith('  File "vb')]
        out("\n".join(keep))
    except MemoryError:
        sys.print_exception(e)


def execute(src, kind, fname="<stdin>", raw=False):
    """Compile and run src in the REPL's globals; returns 0 or FORCED (soft reset wanted)."""
    ret = 0
    done = False
    try:
        code = compile(src, fname, kind)
        vb_hw.set_intr(3)
        exec(code, G)
        done = True
        vb_hw.set_intr(-1)
    except SystemExit:
        if vb_hw.lost:
            raise
        ret = FORCED
        vb_hw.set_intr(-1)
        if raw:
            out(b"\x04")
    except BaseException as e:
        if not done:
            _safe_intr_off()
        if raw:
            out(b"\x04")
        _print_exc(e)
    else:
        if raw:
            out(b"\x04")
    if raw:
        out(b"\x04")
    return ret


def _heap_unlocked():
    # A SIGINT (a Ctrl-C that no sample fetch took, see vb_hw) raises KeyboardInterrupt from the
    # unix port's signal handler (MICROPY_ASYNC_KBD_INTR), which can land inside gc.collect()
    # and leave its "collecting" flag set: then nothing can be allocated. A Pico checks for
    # Ctrl-C between bytecodes and never does that. A whole collection clears the flag again;
    # heap_unlock() is for a heap_lock() the interrupt skipped (only when the MemoryError says
    # the heap is locked: unlocking an unlocked heap would wrap its lock depth round).
    import gc
    import micropython

    for attempt in range(8):
        try:
            bytearray(16)
            return
        except MemoryError as e:
            if not e.args or "locked" not in e.args[0]:  # str(e) would allocate
                return  # really out of memory
            if attempt:
                micropython.heap_unlock()
            else:
                gc.collect()


def _safe_intr_off():
    # A second Ctrl-C can arrive while this runs (a tool that got no answer sends another), and
    # land inside a collection again: unlock and try again, a bounded number of times.
    for _ in range(4):
        _heap_unlocked()
        try:
            vb_hw.set_intr(-1)
            return
        except (KeyboardInterrupt, MemoryError):
            pass
    _heap_unlocked()
    vb_hw.set_intr(-1)


def run_file(name):
    import os

    try:
        os.stat(name)
    except OSError:
        return 0
    with open(name) as f:
        src = f.read()
    G["__file__"] = name
    return execute(src, "exec", name)


# Raw REPL ---------------------------------------------------------------------------------------


def raw_repl():
    global mode
    out(b"raw REPL; CTRL-B to exit\r\n")
    line = bytearray()
    while True:
        line = bytearray()
        out(b">")
        while True:
            c = rx()
            if c == 1:
                if len(line) == 2 and line[0] == 5:
                    ret = _raw_paste(line[1])
                    if ret & FORCED:
                        return ret
                    line = bytearray()
                    out(b">")
                    continue
                out(b"raw REPL; CTRL-B to exit\r\n")
                line = bytearray()
                out(b">")
            elif c == 2:
                out(b"\r\n")
                mode = "friendly"
                return 0
            elif c == 3:
                line = bytearray()
            elif c == 4:
                break
            else:
                line.append(c)
        out(b"OK")
        if not line:
            out(b"\r\n")
            return FORCED
        ret = execute(bytes(line), "exec", raw=True)
        if ret & FORCED:
            return ret


def _raw_paste(c):
    if c != ord("A"):
        out(b"R\x00")
        return 0
    out(b"R\x01")
    out(bytes((_WINDOW & 255, _WINDOW >> 8, 1)))
    buf = bytearray()
    remain = _WINDOW
    while True:
        c = rx()
        if c == 3 or c == 4:
            out(b"\x04")  # end acknowledged
            if c == 3:
                out(b"\x04")
                _print_exc(KeyboardInterrupt())
                out(b"\x04")
                return 0
            break
        buf.append(c)
        remain -= 1
        if remain == 0:
            out(b"\x01")  # another window may be sent
            remain = _WINDOW
    return execute(bytes(buf), "exec", raw=True)


# Friendly REPL ----------------------------------------------------------------------------------


def banner():
    v = sys.version.split("MicroPython ")[-1]
    out("MicroPython %s; Raspberry Pi Pico (rhinoref virtual board) with RP2040\r\n" % v)
    out(b'Type "help()" for more information.\r\n')


def friendly_repl(show_banner=True):
    global mode
    if show_banner:
        banner()
    while True:
        line = bytearray()
        ret = readline(line, ">>> ")
        kind = "single"
        if ret == 1:
            out(b"\r\n")
            mode = "raw"
            return 0
        if ret == 2:
            out(b"\r\n")
            banner()
            continue
        if ret == 3:
            out(b"\r\n")
            continue
        if ret == 4:
            out(b"\r\n")
            return FORCED
        if ret == 5:
            out(b"\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")
            line = bytearray()
            cancelled = False
            while True:
                c = rx()
                if c == 3:
                    out(b"\r\n")
                    cancelled = True
                    break
                if c == 4:
                    out(b"\r\n")
                    break
                line.append(c)
                out(b"\r\n=== " if c == 13 else bytes((c,)))
            if cancelled:
                continue
            kind = "exec"
        elif not line:
            continue
        else:
            cancelled = False
            while continue_with_input(line):
                line.append(10)
                r = readline(line, "... ")
                if r == 3:
                    out(b"\r\n")
                    cancelled = True
                    break
                if r == 4:
                    break
            if cancelled:
                continue
        ret = execute(bytes(line).replace(b"\r", b"\n"), kind)
        if ret & FORCED:
            return ret


_COMPOUND = (b"if", b"while", b"for", b"try", b"with", b"def", b"class", b"async")


def continue_with_input(line):
    """py/repl.c's rule: more lines for a compound statement, open brackets or quotes, or \\."""
    if not line:
        return False
    line = bytes(line)
    first = line.split(b"\n", 1)[0]
    word = first.split(b" ")[0].split(b"(")[0].split(b":")[0]
    compound = first.startswith(b"@") or word in _COMPOUND
    paren = brack = brace = 0
    q = 0  # 0 none, 1 ', 2 ", 3 ''', 4 """
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if c == 39 or c == 34:
            three = q in (0, 3 if c == 39 else 4) and line[i + 1 : i + 3] == bytes((c, c))
            if three:
                i += 2
                q = 0 if q else (3 if c == 39 else 4)
            elif q == 0:
                q = 1 if c == 39 else 2
            elif q == (1 if c == 39 else 2):
                q = 0
        elif c == 92 and i + 1 < n and line[i + 1] in (39, 34, 92):
            if q:
                i += 1
        elif q == 0:
            if c == 40:
                paren += 1
            elif c == 41:
                paren -= 1
            elif c == 91:
                brack += 1
            elif c == 93:
                brack -= 1
            elif c == 123:
                brace += 1
            elif c == 125:
                brace -= 1
        i += 1
    if q in (3, 4):
        return True
    if (paren > 0 or brack > 0 or brace > 0) and q == 0:
        return True
    if line[-1] == 92:
        return True
    return compound and line[-1] != 10


def _back(n):
    if n <= 0:
        return
    out(b"\b" * n if n <= 4 else ("\x1b[%uD" % n).encode())


def readline(line, prompt):
    """Edit the last line of `line` (a bytearray) in place; returns 0 on Enter or the control
    character (1-5) that ends input on an empty line, 3 for Ctrl-C."""
    orig = len(line)
    cur = [orig]
    hist = [-1]
    if orig == 0:
        _auto[0] = 1
    out(prompt)
    _auto_indent(line, cur)
    esc = 0
    escd = 0
    while True:
        c = rx()
        last = len(line)
        back = 0
        redraw = False
        fwd = 0
        if esc == 0:
            if 1 <= c <= 5 and len(line) == orig:
                return c
            if c == 1:
                back = cur[0] - orig
            elif c == 3:
                return 3
            elif c == 5:
                fwd = len(line) - cur[0]
            elif c == 13:
                out(b"\r\n")
                s = bytes(line[orig:])
                if s and (not _hist or _hist[0] != s):
                    _hist.insert(0, s)
                    del _hist[8:]
                return 0
            elif c == 27:
                esc = 1
            elif c == 8 or c == 127:
                if cur[0] > orig:
                    ns = 0
                    for k in range(orig, cur[0]):
                        if line[k] != 32:
                            ns = 0
                            break
                        ns += 1
                    ns = 4 if ns >= 4 else 1
                    line[cur[0] - ns : cur[0]] = b""
                    back = ns
                    redraw = True
            elif (_auto[0] & 2) and (c == 9 or c == 32):
                _auto[0] = 0
                if c == 32:
                    back = 3
                    line[len(line) - 3 :] = b""
            elif c == 9:
                if len(line) > orig and line[cur[0] - 1] in (32, 10):
                    line[cur[0] : cur[0]] = b"    "
                    redraw = True
                    fwd = 4
            elif 32 <= c <= 126:
                line[cur[0] : cur[0]] = bytes((c,))
                redraw = True
                fwd = 1
        elif esc == 1:
            esc = 2 if c == 91 else (3 if c == 79 else 0)
        elif esc == 2:
            if 48 <= c <= 57:
                esc = 4
                escd = c
            else:
                esc = 0
                if c == 65 or c == 66:  # up, down: history
                    h = hist[0] + (1 if c == 65 else -1)
                    if -1 <= h < len(_hist):
                        hist[0] = h
                        line[orig:] = _hist[h] if h >= 0 else b""
                        back = cur[0] - orig
                        redraw = True
                        fwd = len(line) - orig
                elif c == 67 and cur[0] < len(line):
                    fwd = 1
                elif c == 68 and cur[0] > orig:
                    back = 1
                elif c == 72:
                    back = cur[0] - orig
                elif c == 70:
                    fwd = len(line) - cur[0]
        elif esc == 4:
            esc = 0
            if c == 126:
                if escd in (49, 55):
                    back = cur[0] - orig
                elif escd in (52, 56):
                    fwd = len(line) - cur[0]
                elif escd == 51 and cur[0] < len(line):
                    line[cur[0] : cur[0] + 1] = b""
                    redraw = True
        elif esc == 3:
            esc = 0
            if c == 72:
                back = cur[0] - orig
            elif c == 70:
                fwd = len(line) - cur[0]
        # redraw, as readline.c does
        if back > 0:
            _back(back)
            cur[0] -= back
        if redraw:
            if len(line) < last:
                out(b"\x1b[K")
            out(bytes(line[cur[0] :]))
            _back(len(line) - (cur[0] + fwd))
            cur[0] += fwd
        elif fwd > 0:
            out(bytes(line[cur[0] : cur[0] + fwd]))
            cur[0] += fwd
        _auto[0] &= ~2


def _auto_indent(line, cur):
    if not (_auto[0] & 1):
        return
    n = len(line)
    if n > 1 and line[n - 1] == 10:
        i = n - 1
        while i > 0 and line[i - 1] != 10:
            i -= 1
        j = i
        while j < n and line[j] == 32:
            j += 1
        if i > 0 and j + 1 == n:
            k = i - 1
            while k > 0:
                if line[k - 1] == 10:
                    return
                if line[k - 1] != 32:
                    break
                k -= 1
        ind = (j - i) // 4
        if line[n - 2] == 58:
            ind += 1
        for _ in range(ind):
            line.extend(b"    ")
            out(b"    ")
            cur[0] += 4
            _auto[0] |= 2


# Boot -------------------------------------------------------------------------------------------


def boot(first_mode):
    """A Pico's main loop after a (soft) reset: boot.py, main.py (friendly mode only), REPL."""
    global mode
    mode = first_mode
    ret = run_file("boot.py")
    if not ret & FORCED and mode == "friendly":
        ret = run_file("main.py")
    if not ret & FORCED:
        fresh = True
        while True:
            try:
                r = raw_repl() if mode == "raw" else friendly_repl(fresh)
                fresh = True
            except KeyboardInterrupt:
                fresh = False  # a late Ctrl-C that hit the REPL itself: carry on
                continue
            if r:
                break
    out(b"MPY: soft reboot\r\n")
    vb_hw.exit_board("soft", mode)
