#!/usr/bin/env python3
"""Opens a fleet report (`dbhost report --snapshot 'fleet/*.json'`) from disk
in headless Chromium (DevTools protocol over a pipe, network emulated
offline, every request recorded) and checks it against `dbhost audit
--snapshot 'fleet/*.json' --format json` of the same snapshots:

  - no console error, no uncaught exception, no request but the file;
  - the host count, one section per host, the counts by severity; in a fleet
    of Linux and AIX hosts, the systems and one majority per system;
  - per failing rule one article whose "fails on K of N" is the number of
    hosts the audit JSON has failing it; a rule failing on more hosts than
    the first few shows those, the rest hidden behind "+N more", which
    expands to every one of them when clicked;
  - a host link scrolls its host's section into view;
  - unchecking a severity hides exactly its rules and the count says so;
  - print media hides the navigation and the filters.

Writes fleet.png (the top of the page) into --out. Exit 1 with every failed
check listed, 3 when Chromium itself failed.

  fleet_html_check.py --html F.html --audit fleet-audit.json --out DIR -- chromium [flags...]
"""

import argparse
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from report_html_check import check, finish, open_offline, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--html", required=True)
    ap.add_argument("--audit", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("chromium", nargs="+")
    a = ap.parse_args()

    hosts = json.load(open(a.audit))["hosts"]
    fail = {}  # rule -> hosts failing it
    sev_rule = {}
    sev = {"critical": 0, "warning": 0, "info": 0}
    for i, h in enumerate(hosts):
        for f in h["findings"]:
            sev[f["severity"]] += 1
            fail.setdefault(f["id"], set()).add(i)
            rank = ["info", "warning", "critical"].index(f["severity"])
            sev_rule[f["id"]] = max(sev_rule.get(f["id"], 0), rank)
    url = "file://" + os.path.abspath(a.html)

    b = cdp.Browser(a.chromium)
    try:
        p = open_offline(b, url)

        n = len(hosts)
        check(("%d hosts" % n) in p.eval("document.querySelector('h1').textContent").replace(",", ""), "h1 says %d hosts" % n)
        systems = {}
        for h in hosts:
            systems[h.get("os", "linux")] = systems.get(h.get("os", "linux"), 0) + 1
        if len(systems) > 1:
            want = ", ".join("%d %s" % (systems[o], name) for o, name in (("linux", "Linux"), ("aix", "AIX")) if o in systems)
            got = p.eval("(document.getElementById('systems') || {textContent: ''}).textContent")
            check(got.startswith(want), "the systems of a mixed fleet: %r (audit JSON: %s)" % (got[:40], want))
            got = p.eval("document.querySelectorAll('#differ table[id^=groups], #differ p[id^=majority]').length")
            check(got >= len(systems), "the hosts that differ, per system (%d blocks)" % got)
        got = p.eval("document.querySelectorAll('#hosts article.host').length")
        check(got == n, "one section per host: %d (audit JSON: %d)" % (got, n))
        for s, k in sev.items():
            got = p.eval("document.querySelector('[data-count=%s]').textContent.trim()" % s)
            check(got == str(k), "findings %s: %s (audit JSON: %d)" % (s, got, k))
        arts = p.eval("Array.from(document.querySelectorAll('#rules article.finding')).map(a => [a.dataset.rule, +a.dataset.fail])")
        check(sorted(arts) == sorted([r, len(h)] for r, h in fail.items()),
              "per failing rule its number of hosts (%d rules)" % len(fail))

        # The rule with the most hosts: the first few shown, the rest behind "+N more".
        rule, many = max(fail.items(), key=lambda kv: (len(kv[1]), kv[0]))
        sel = "document.getElementById(%s)" % json.dumps("r-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in rule))
        visible = "Array.from(%s.querySelectorAll('div.fails a')).filter(x => x.checkVisibility()).length" % sel
        shown0 = p.eval(visible)
        if len(many) > 8:
            check(shown0 == 8, "%s fails on %d hosts: 8 named before +N more (got %d)" % (rule, len(many), shown0))
            summary = p.eval("%s.querySelector('details.more summary').textContent" % sel)
            check(summary == "+%d more" % (len(many) - 8), "the rest behind %r" % summary)
            p.eval("%s.querySelector('details.more summary').click()" % sel)
            shown1 = p.eval(visible)
            check(shown1 == len(many), "clicking +N more shows all %d hosts (got %d)" % (len(many), shown1))
        else:
            check(False, "the suite's fleet wants a rule failing on more than 8 hosts (the most: %s on %d)" % (rule, len(many)))

        # A host link lands on its section.
        target = p.eval("(function(){var a=%s.querySelector('div.fails a'); a.click(); var t=document.getElementById(a.getAttribute('href').slice(1));"
                        " return [location.hash, t ? Math.round(t.getBoundingClientRect().top) : null];})()" % sel)
        check(target[1] is not None and abs(target[1]) < 40, "a host link scrolls its section into view (%s at %s px)" % tuple(target))

        # Filters.
        total = len(fail)
        s0 = next(s for s in ("info", "warning", "critical") if any(v == ["info", "warning", "critical"].index(s) for v in sev_rule.values()))
        p.eval("document.getElementById('fs-%s').click()" % s0)
        want = total - sum(1 for v in sev_rule.values() if v == ["info", "warning", "critical"].index(s0))
        got = p.eval("document.querySelectorAll('#rules article.finding:not([hidden])').length")
        check(got == want, "unchecking %s leaves %d rule(s) (got %d)" % (s0, want, got))
        txt = p.eval("document.getElementById('shown').textContent")
        check(txt == "Showing %d of %d failing rules" % (want, total), "the count says so: %r" % txt)
        p.eval("document.getElementById('filter-reset').click()")

        p.call("Emulation.setEmulatedMedia", {"media": "print"})
        check(p.eval("getComputedStyle(document.querySelector('nav')).display") == "none", "print: navigation hidden")
        p.call("Emulation.setEmulatedMedia", {"media": ""})
        p.eval("window.scrollTo(0, 0)")
        r = p.call("Page.captureScreenshot", {"format": "png"}, timeout=120)
        with open(os.path.join(a.out, "fleet.png"), "wb") as f:
            f.write(base64.b64decode(r["data"]))
        check(os.path.getsize(os.path.join(a.out, "fleet.png")) > 10000, "screenshot written: %s" % os.path.join(a.out, "fleet.png"))
        b.drain(0.2)
        late = [e for e in b.events if e["method"] == "Runtime.exceptionThrown"]
        check(not late, "no exception while expanding, following links and filtering")
    finally:
        b.close()
    finish()


if __name__ == "__main__":
    run(main)
