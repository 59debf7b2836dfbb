#!/usr/bin/env python3
"""Opens a `dbhost report` HTML file from disk in headless Chromium (DevTools
protocol over a pipe, network emulated offline, every request recorded) and
checks what a reader sees against dbhost's own JSON of the same host:

  - no console error, no uncaught exception, no request other than the file itself;
  - the sections, the counts by severity and by area, one card per NUMA node,
    the distance table N x N (from `dbhost numa --format json`);
  - the databases section: the servers read over a connection and each
    database instance node by node (from `dbhost collect --format json`);
  - the filters: unchecking a severity, then an area, hides exactly those
    findings and says how many are shown; "Show all" brings them back;
  - the copy button takes the fix's commands;
  - with --bench files: the NUMA matrix heatmaps and the charts;
  - print: under print media the navigation and filters are hidden; a PDF is printed.

Writes report.png (the whole page), report-filtered.png and report.pdf into
--out. Exit 1 with every failed check listed, 3 when Chromium itself failed.

  report_html_check.py --html R.html --audit audit.json --numa numa.json --snapshot snap.json --out DIR
      [--matrices N] [--charts N] -- chromium [flags...]
"""

import argparse
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def open_offline(b, url):
    """Opens url in a new tab of b with the network emulated offline, waits
    for it to load, and checks that it asked for nothing but itself and
    said no error."""
    p = cdp.Page(b)
    for d in ("Runtime.enable", "Log.enable", "Network.enable", "Page.enable"):
        p.call(d)
    p.call("Network.emulateNetworkConditions",
           {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    p.call("Emulation.setDeviceMetricsOverride",
           {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    p.call("Page.navigate", {"url": url})
    b.wait_event("Page.loadEventFired", session=p.session)
    b.drain(0.5)
    foreign, errors = browser_errors(b)
    check(not foreign, "no network request (%s)" % (", ".join(foreign) or "the file only"))
    check(not errors, "no console error (%s)" % ("; ".join(errors) or "none"))
    return p


def browser_errors(b):
    """The requests for anything but the file (or data: URLs), and the
    console errors, log errors and uncaught exceptions seen so far."""
    reqs = [e["params"]["request"]["url"] for e in b.events if e["method"] == "Network.requestWillBeSent"]
    foreign = [u for u in reqs if not (u.startswith("file://") or u.startswith("data:"))]
    errors = []
    for e in b.events:
        m, prm = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errors.append("exception: " + json.dumps(prm.get("exceptionDetails", {}))[:300])
        elif m == "Runtime.consoleAPICalled" and prm.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (prm["type"], json.dumps(prm.get("args"))[:300]))
        elif m == "Log.entryAdded" and prm["entry"].get("level") == "error":
            errors.append("log: " + prm["entry"].get("text", "")[:300])
    return foreign, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--html", required=True)
    ap.add_argument("--audit", required=True)
    ap.add_argument("--numa", required=True)
    ap.add_argument("--snapshot", required=True, help="dbhost collect --format json of the same host")
    ap.add_argument("--out", required=True)
    ap.add_argument("--matrices", type=int, default=0)
    ap.add_argument("--charts", type=int, default=0)
    ap.add_argument("chromium", nargs="+")
    a = ap.parse_args()

    audit = json.load(open(a.audit))["hosts"][0]
    numa = json.load(open(a.numa))
    sev = {"critical": 0, "warning": 0, "info": 0}
    area = {}
    for f in audit["findings"]:
        sev[f["severity"]] += 1
        area[f["area"]] = area.get(f["area"], 0) + 1
    total = len(audit["findings"])
    nodes = len(numa["nodes"])
    snap = json.load(open(a.snapshot))
    instances = []
    for pr in snap.get("processes") or []:
        name = pr.get("instance") or "(%s, no instance name)" % pr.get("engine")
        if name not in instances:
            instances.append(name)
    servers = len(snap.get("databases") or [])
    url = "file://" + os.path.abspath(a.html)

    b = cdp.Browser(a.chromium)
    try:
        p = open_offline(b, url)

        # Sections and counts.
        for sid in ["summary", "findings", "numa", "databases", "appendix"] + (["bench"] if a.matrices or a.charts else []):
            check(p.eval("!!document.querySelector('section#%s > h2')" % sid), "section #%s with its heading" % sid)
        check(p.eval("document.querySelectorAll('h1').length") == 1, "one h1")
        host = audit["host"]
        check(host in p.eval("document.querySelector('h1').textContent"), "h1 names the host %s" % host)
        for s, n in sev.items():
            got = p.eval("document.querySelector('[data-count=%s]').textContent.trim()" % s)
            check(got == str(n), "summary count %s: %s (audit JSON: %d)" % (s, got, n))
        check(p.eval("document.querySelectorAll('article.finding').length") == total, "%d findings in the DOM" % total)
        for ar, n in sorted(area.items()):
            got = p.eval("document.querySelectorAll('section#area-%s article.finding').length" % ar)
            check(got == n, "area %s: %s finding(s) (audit JSON: %d)" % (ar, got, n))
        top = p.eval("document.querySelectorAll('#top li').length")
        check(top == min(3, len({f['id'] for f in audit['findings']})), "top findings: %s" % top)
        check(p.eval("document.querySelectorAll('#nodes article.node').length") == nodes, "%d NUMA node cards" % nodes)
        rows = p.eval("Array.from(document.querySelectorAll('#distance tbody tr')).map(r => r.querySelectorAll('td').length)")
        check(rows == [nodes] * nodes if nodes > 0 and numa["nodes"][0].get("distances") else True,
              "distance heatmap %dx%d (%s)" % (nodes, nodes, rows))
        # Databases: the servers read over a connection, each instance node by node.
        got = p.eval("document.querySelectorAll('#databases article.server').length")
        check(got == servers, "%d database server(s) read over a connection (snapshot: %d)" % (got, servers))
        if servers == 0:
            check(p.eval("!!document.getElementById('no-servers')"), "the page says no server was read over a connection")
        rows = p.eval("Array.from(document.querySelectorAll('#instance-nodes tbody tr')).map(r => [r.querySelector('th').textContent, r.querySelectorAll('td').length])")
        check(rows == [[n, len(snap["topology"]["nodes"])] for n in instances],
              "instances node by node: %s (snapshot: %s x %d nodes)" % (rows, instances, len(snap["topology"]["nodes"])))
        homes = p.eval("Array.from(document.querySelectorAll('#instance-nodes td.home')).map(c => c.textContent)")
        check(all("memory allowed" in h and "CPUs " in h for h in homes),
              "outlined cells say their CPUs and that memory is allowed there (%d outlined)" % len(homes))
        check(p.eval("getComputedStyle(document.querySelector('#instance-nodes td.home') || document.body).outlineStyle") == ("solid" if homes else "none"),
              "CPUs and memory on one node are outlined")
        check(p.eval("document.querySelectorAll('table th[scope]').length") > 0, "table headers carry scope")
        check(p.eval("Array.from(document.querySelectorAll('article.finding .sev')).every(s => /critical|warning|info/.test(s.textContent))"),
              "every severity badge says its severity in words (colour is not the only signal)")

        def visible():
            return p.eval("document.querySelectorAll('article.finding:not([hidden])').length")

        def shown():
            return p.eval("document.getElementById('shown').textContent")

        if total > 0:
            # Filters: a severity, then an area.
            present = [s for s in ("info", "warning", "critical") if sev[s] > 0]
            s0 = present[0]
            p.eval("document.getElementById('fs-%s').click()" % s0)
            want = total - sev[s0]
            check(visible() == want, "unchecking %s leaves %d finding(s) visible (got %d)" % (s0, want, visible()))
            check(shown() == "Showing %d of %d findings" % (want, total), "the count says so: %r" % shown())
            ar = sorted(area)[0]
            p.eval("document.getElementById('fa-%s').click()" % ar)
            want2 = sum(1 for f in audit["findings"] if f["severity"] != s0 and f["area"] != ar)
            check(visible() == want2, "then unchecking area %s leaves %d (got %d)" % (ar, want2, visible()))
            check(p.eval("document.getElementById('area-%s').hidden" % ar), "the area's section is hidden")
            shot(p, os.path.join(a.out, "report-filtered.png"), full=False)
            p.eval("document.getElementById('filter-reset').click()")
            check(visible() == total, "Show all shows the %d findings again" % total)
            # Copy.
            txt = p.eval("(function(){var b=document.querySelector('button.copy'); if(!b) return null; b.click();"
                         " return [document.getElementById(b.getAttribute('data-copy')).textContent, document.body.getAttribute('data-last-copy')];})()")
            if txt is not None:
                check(txt[0] == txt[1] and txt[0], "the copy button takes the fix's commands (%r)" % (txt[0] or "")[:60])

        if a.matrices:
            got = p.eval("document.querySelectorAll('table.numa-matrix').length")
            check(got == a.matrices, "%d NUMA matrix heatmap(s) (got %d)" % (a.matrices, got))
        if a.charts:
            got = p.eval("document.querySelectorAll('figure.chart svg').length")
            check(got == a.charts, "%d chart(s) (got %d)" % (a.charts, got))
            check(p.eval("Array.from(document.querySelectorAll('figure.chart svg')).every(s => s.getBBox().width > 0)"),
                  "every chart is drawn (non-empty bounding box)")

        # Print.
        p.call("Emulation.setEmulatedMedia", {"media": "print"})
        check(p.eval("getComputedStyle(document.querySelector('nav')).display") == "none", "print: navigation hidden")
        check(p.eval("Array.from(document.querySelectorAll('button.copy, #filters fieldset')).every(b => getComputedStyle(b).display === 'none')"),
              "print: copy buttons and filter boxes hidden")
        p.call("Emulation.setEmulatedMedia", {"media": ""})
        pdf = p.call("Page.printToPDF", {"printBackground": True}, timeout=120)
        data = base64.b64decode(pdf["data"])
        with open(os.path.join(a.out, "report.pdf"), "wb") as f:
            f.write(data)
        check(data[:5] == b"%PDF-" and len(data) > 10000, "printed to PDF (%d bytes)" % len(data))

        shot(p, os.path.join(a.out, "report.png"), full=True)
        check(os.path.getsize(os.path.join(a.out, "report.png")) > 10000, "screenshot written: %s" % os.path.join(a.out, "report.png"))

        b.drain(0.2)
        late = [e for e in b.events if e["method"] == "Runtime.exceptionThrown"]
        check(not late, "no exception while filtering, copying and printing")
    finally:
        b.close()
    finish()


def finish():
    """Ends a checker: exit 1 with the number of failed checks, or says all passed."""
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


def run(main):
    """Runs a checker's main: Chromium failing (crashed, hung) is exit 3, not a check of the page."""
    try:
        main()
    except cdp.CDPError as e:
        print("chromium: %s" % e)
        sys.exit(3)


def shot(p, path, full):
    h = 900
    if full:
        h = min(16000, int(p.eval("document.documentElement.scrollHeight")))
        p.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": h, "deviceScaleFactor": 1, "mobile": False})
    r = p.call("Page.captureScreenshot", {"format": "png"}, timeout=120)
    with open(path, "wb") as f:
        f.write(base64.b64decode(r["data"]))
    p.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})


if __name__ == "__main__":
    run(main)
