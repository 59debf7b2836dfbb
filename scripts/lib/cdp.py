"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe.

Chromium reads commands from its fd 3 and writes replies and events to its
fd 4, each message one JSON object followed by a NUL byte. No port, no
websocket library: the standard library is enough. Used by
scripts/suites/report-html.sh (scripts/lib/report_html_check.py).
"""

import json
import os
import select
import signal
import subprocess
import time


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, argv, timeout=60.0):
        """argv: the command that starts Chromium (flags included, without
        --remote-debugging-pipe, which is added). Chromium's standard error
        goes to the file $CDP_LOG names (else nowhere): what it said before
        dying is quoted in the error (fatal())."""
        self.timeout = timeout
        self.log = os.environ.get("CDP_LOG")
        to_r, to_w = os.pipe()  # our commands -> browser's fd 3
        from_r, from_w = os.pipe()  # browser's fd 4 -> our events

        # The shell puts the pipe ends on fds 3 and 4 (through 20 and 21,
        # so that an end already numbered 3 or 4 is not overwritten).
        shell = 'exec 20<&"$0" 21>&"$1" 3<&20 4>&21 20<&- 21>&-; shift; exec "$@"'
        self.proc = subprocess.Popen(
            ["bash", "-c", shell, str(to_r), str(from_w)] + argv + ["--remote-debugging-pipe"],
            pass_fds=(to_r, from_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.log, "ab") if self.log else subprocess.DEVNULL,
        )
        os.close(to_r)
        os.close(from_w)
        self.w, self.r = to_w, from_r
        self.buf = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass

    def status(self):
        """How the browser process ended, waiting a little for it."""
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "still running"
        if rc < 0:
            try:
                return "killed by %s" % signal.Signals(-rc).name
            except ValueError:
                return "killed by signal %d" % -rc
        return "exit status %d" % rc

    def fatal(self):
        """Chromium's last FATAL or failed CHECK line in its log, if any."""
        if not self.log:
            return ""
        try:
            with open(self.log, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        bad = [ln for ln in lines if "FATAL" in ln or "Check failed" in ln]
        return (": " + bad[-1][:400]) if bad else ""

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for Chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise CDPError("Chromium closed the pipe (%s)%s" % (self.status(), self.fatal()))
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.w, data)
            data = data[n:]
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session=None, timeout=None):
        """Waits for an event (also one already received) and returns it."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and (session is None or e.get("sessionId") == session):
                    return self.events.pop(i)
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)

    def drain(self, seconds):
        """Collects the events that arrive within seconds."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                m = self._read_message(deadline)
                if "method" in m:
                    self.events.append(m)
        except CDPError as e:
            if "timed out" not in str(e):
                raise


class Page:
    """One tab, attached with a flat session."""

    def __init__(self, browser):
        self.b = browser
        t = browser.call("Target.createTarget", {"url": "about:blank"})
        s = browser.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})
        self.session = s["sessionId"]

    def call(self, method, params=None, timeout=None):
        return self.b.call(method, params, session=self.session, timeout=timeout)

    def eval(self, expr):
        """Evaluates a JS expression and returns its value (JSON)."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError("evaluate %r: %s" % (expr[:80], r["exceptionDetails"].get("text")))
        return r["result"].get("value")
