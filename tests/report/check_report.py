#!/usr/bin/env python3
"""Opens ckptsim HTML reports in headless Chromium and checks what a user would see.

  check_report.py run OUT_DIR      OUT_DIR/report.html of `ckptsim run --out OUT_DIR --report`
  check_report.py sweep SWEEP_DIR  SWEEP_DIR/report.html of `ckptsim sweep ... --report`
  check_report.py trace TRACE SCHEMA

For a report: no console errors or exceptions, no network request besides the file itself, a
screenshot that is not blank, and the DOM holding one timeline bar per checkpoint of the run (the
rest/ detail files) or one point per setting, metric and key of the sweep (comparison.json).
For a trace: valid against the JSON schema, spans nested per track, time monotone per track,
flows with both ends. Talks to Chromium over --remote-debugging-pipe (DevTools protocol); only
the Python standard library and python3-jsonschema. Exit code 0 when every check passes.
"""
import base64, glob, json, os, shutil, struct, subprocess, sys, tempfile, time, zlib

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--remote-debugging-pipe"]


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="ckptsim-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # The DevTools pipe is the child's fd 3 (commands in) and fd 4 (replies out).
        def fds():
            # Through fresh duplicates: the pipe's own fds may be 3 or 4, and dup2 onto itself
            # would leave them close-on-exec.
            commands, replies = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(commands, 3)
            os.dup2(replies, 4)
        exe = shutil.which("chromium") or "/usr/bin/chromium"
        self.proc = subprocess.Popen(
            [exe] + CHROMIUM_FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self.read(deadline))

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def png_is_blank(png):
    """A blank page's filtered scanlines are nearly all one byte value."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            idat += png[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    counts = [0] * 256
    for b in raw[::7]:
        counts[b] += 1
    common = max(counts)
    return sum(1 for c in counts if c) < 16 or (sum(counts) - common) < 0.01 * sum(counts)


def open_report(path, width=1200, height=1600):
    """Loads the file; returns (dom counts function, problems, screenshot bytes, load seconds)."""
    browser = Browser()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(domain + ".enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                     session=session)
        url = "file://" + os.path.abspath(path)
        started = time.time()
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired")
        load_seconds = time.time() - started
        def count(selector):
            result = browser.send("Runtime.evaluate", {
                "expression": f"document.querySelectorAll({json.dumps(selector)}).length",
                "returnByValue": True}, session=session)
            return result["result"]["value"]
        counts = {s: count(s) for s in (".ckpt-bar", ".ci-point", "svg")}
        shot = base64.b64decode(browser.send("Page.captureScreenshot", {"format": "png"},
                                             session=session)["data"])
        problems = []
        for e in browser.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                problems.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append("console error: " + json.dumps(p.get("args"))[:300])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append("log error: " + p["entry"].get("text", "")[:300])
            elif m == "Network.requestWillBeSent" and p.get("request", {}).get("url") != url:
                problems.append("network request: " + p["request"]["url"][:300])
        return counts, problems, shot, load_seconds
    finally:
        browser.close()


def check_page(path, selector, expected, screenshot_out=None):
    counts, problems, shot, seconds = open_report(path)
    if screenshot_out:
        with open(screenshot_out, "wb") as f:
            f.write(shot)
    if png_is_blank(shot):
        problems.append("the screenshot is blank")
    if counts[selector] != expected:
        problems.append(f"{counts[selector]} elements {selector} in the DOM, expected {expected}")
    if counts["svg"] == 0:
        problems.append("no chart")
    print(f"{path}: {os.path.getsize(path)} bytes, loaded in {seconds:.2f} s, "
          f"{counts[selector]} x {selector}, {counts['svg']} charts")
    return problems


def check_run(out_dir, screenshot_out=None):
    details = glob.glob(os.path.join(out_dir, "rest/jobs/*/checkpoints/details/*.json"))
    return check_page(os.path.join(out_dir, "report.html"), ".ckpt-bar", len(details),
                      screenshot_out)


def check_sweep(sweep_dir, screenshot_out=None):
    with open(os.path.join(sweep_dir, "comparison.json")) as f:
        cmp = json.load(f)
    points = sum(1 for s in cmp["settings"] for m in s["metrics"].values() if m.get("n", 0) > 0)
    return check_page(os.path.join(sweep_dir, "report.html"), ".ci-point",
                      points * len(cmp["keys"]), screenshot_out)


def check_trace(trace_path, schema_path):
    import jsonschema
    with open(trace_path) as f:
        trace = json.load(f)
    with open(schema_path) as f:
        schema = json.load(f)
    problems = [f"schema: {e.message} at {list(e.absolute_path)[:4]}"
                for e in list(jsonschema.Draft7Validator(schema).iter_errors(trace))[:10]]
    if problems:
        return problems
    last, stacks, spans, flows = {}, {}, {}, {}
    ns = lambda v: round(v * 1000)  # microseconds with exact ns decimals
    for e in trace.get("traceEvents", []):
        if e.get("ph") == "M":
            continue
        track = (e["pid"], e["tid"])
        ts = ns(e["ts"])
        if ts < last.get(track, ts):
            problems.append(f"time goes back on track {track} at {e['ts']}")
        last[track] = ts
        if e["ph"] == "X":
            end = ts + ns(e["dur"])
            stack = stacks.setdefault(track, [])
            while stack and ts >= stack[-1]:
                stack.pop()
            if stack and end > stack[-1]:
                problems.append(f"span {e['name']} at {e['ts']} on {track} crosses its parent")
            stack.append(end)
            spans.setdefault(track, []).append((ts, end))
        elif e["ph"] in "sf":
            flows.setdefault(e["id"], []).append((e["ph"], track, ts))
    for fid, ends in flows.items():
        if sorted(p for p, _, _ in ends) != ["f", "s"]:
            problems.append(f"flow {fid} has ends {ends}")
            continue
        for _, track, ts in ends:
            if not any(a <= ts <= b for a, b in spans.get(track, [])):
                problems.append(f"flow {fid} end at {ts} ns lies in no span of {track}")
    print(f"{trace_path}: {os.path.getsize(trace_path)} bytes, "
          f"{len(trace.get('traceEvents', []))} events, {len(flows)} flows")
    return problems[:20]


def main(argv):
    if len(argv) < 3 or argv[1] not in ("run", "sweep", "trace"):
        print(__doc__)
        return 2
    if argv[1] == "run":
        problems = check_run(argv[2], argv[3] if len(argv) > 3 else None)
    elif argv[1] == "sweep":
        problems = check_sweep(argv[2], argv[3] if len(argv) > 3 else None)
    else:
        problems = check_trace(argv[2], argv[3])
    for p in problems:
        print("  FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
