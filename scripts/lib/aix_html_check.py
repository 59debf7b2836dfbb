#!/usr/bin/env python3
"""Opens the report of an AIX host (`dbhost report --aix-bundle B`) from disk
in headless Chromium (DevTools protocol over a pipe, network emulated
offline, every request recorded) and checks what a reader sees against
dbhost's own JSON of the same bundle (`collect --format json`, `audit
--format json`):

  - no console error, no uncaught exception, no request but the file;
  - the AIX host picture instead of Linux's NUMA picture; the counts by severity;
  - the LPAR, one card per SRAD, one row per page pool, per vmstat -v
    blocked-I/O counter, per hdisk, per FC adapter, per paging space, the
    file systems; the non-zero counters marked in words (not by colour
    alone) and coloured, the zero ones not;
  - every bar labelled and drawn within its track;
  - print: the navigation hidden.

Writes report-aix.png (the whole page) into --out. Exit 1 with every failed
check listed, 3 when Chromium itself failed.

  aix_html_check.py --html R.html --audit audit.json --snapshot snap.json --out DIR -- chromium [flags...]
"""

import argparse
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from report_html_check import check, finish, open_offline, run, shot  # noqa: E402

BLOCKED = [
    "pending disk I/Os blocked with no pbuf",
    "paging space I/Os blocked with no psbuf",
    "filesystem I/Os blocked with no fsbuf",
    "client filesystem I/Os blocked with no fsbuf",
    "external pager filesystem I/Os blocked with no fsbuf",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--html", required=True)
    ap.add_argument("--audit", required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("chromium", nargs="+")
    a = ap.parse_args()

    audit = json.load(open(a.audit))["hosts"][0]
    aix = json.load(open(a.snapshot))["aix"]
    sev = {"critical": 0, "warning": 0, "info": 0}
    for f in audit["findings"]:
        sev[f["severity"]] += 1
    vm = aix.get("vmstat_v") or {}
    nonzero_blocked = sum(1 for k in BLOCKED if vm.get(k, 0) > 0)
    fc_nonzero = sum(1 for f in aix.get("fc_adapters") or [] for k in
                     ("no_dma_resource_count", "no_adapter_elements_count", "no_command_resource_count") if (f.get(k) or 0) > 0)

    b = cdp.Browser(a.chromium)
    try:
        p = open_offline(b, "file://" + os.path.abspath(a.html))

        def n(sel):
            return p.eval("document.querySelectorAll(%s).length" % json.dumps(sel))

        check(p.eval("!!document.querySelector('section#aix > h2')"), "section #aix with its heading")
        check(n("section#numa") == 0, "no Linux NUMA picture on an AIX host")
        for s, k in sev.items():
            got = p.eval("document.querySelector('[data-count=%s]').textContent.trim()" % s)
            check(got == str(k), "summary count %s: %s (audit JSON: %d)" % (s, got, k))
        check(n("article.finding") == len(audit["findings"]), "%d findings in the DOM" % len(audit["findings"]))
        lpar = p.eval("(document.getElementById('aix-lpar') || {textContent: ''}).textContent")
        lp = aix.get("lpar") or {}
        for want in [lp.get("type"), lp.get("mode"), "SMT%s" % lp.get("smt"), "%s online" % lp.get("online_vcpus")]:
            check(want and want in lpar, "LPAR says %r" % want)
        srads = aix.get("srads") or []
        check(n("#aix-srads article.srad") == len(srads), "%d SRAD card(s) (lssrad: %d)" % (n("#aix-srads article.srad"), len(srads)))
        for r in srads:
            txt = p.eval("document.getElementById('srad-%d').textContent" % r["srad"])
            check(("%d CPU(s)" % len(r["cpus"])) in txt, "SRAD %d: %d CPU(s)" % (r["srad"], len(r["cpus"])))
        for table, want, what in [("aix-pools", len(aix.get("page_pools") or []), "page pools (svmon -G)"),
                                  ("aix-blocked", len(BLOCKED), "vmstat -v blocked-I/O counters"),
                                  ("aix-disks", len(aix.get("disks") or []), "hdisks"),
                                  ("aix-fc", len(aix.get("fc_adapters") or []), "FC adapters"),
                                  ("aix-paging", len(aix.get("paging_spaces") or []), "paging spaces")]:
            got = n("#%s tbody tr" % table)
            check(got == want, "%s: %d row(s) (snapshot: %d)" % (what, got, want))
        got = n("#aix-fs tbody tr")
        check(got >= len(aix.get("filesystems") or []), "file systems: %d row(s) (lsfs -q: %d)" % (got, len(aix.get("filesystems") or [])))
        got = n("#aix-blocked tr[data-nonzero=true]")
        check(got == nonzero_blocked and got > 0, "%d non-zero blocked-I/O counter(s) marked (vmstat -v: %d)" % (got, nonzero_blocked))
        got = n("#aix-fc td[data-nonzero=true]")
        check(got == fc_nonzero, "%d non-zero fcstat counter(s) marked (snapshot: %d)" % (got, fc_nonzero))
        check(p.eval("Array.from(document.querySelectorAll('#aix [data-nonzero=true]')).every(e => e.textContent.includes('\u25b2'))"),
              "every non-zero counter says so in words (\u25b2), not by colour alone")
        colours = p.eval("""(function(){
            var nz = document.querySelector('#aix-blocked tr[data-nonzero=true] th');
            var z = document.querySelector('#aix-blocked tr:not([data-nonzero]) th');
            return [nz && getComputedStyle(nz).backgroundColor, z && getComputedStyle(z).backgroundColor];})()""")
        check(colours[0] and colours[0] != colours[1], "non-zero rows are also coloured (%s vs %s)" % tuple(colours))
        bars = p.eval("""Array.from(document.querySelectorAll('#aix span.bar')).map(function(b){
            var w = b.getBoundingClientRect().width, inner = 0;
            Array.from(b.children).forEach(function(c){ inner += c.getBoundingClientRect().width; });
            return [b.getAttribute('aria-label') || '', w, inner];})""")
        check(len(bars) > 0, "%d bars drawn in the AIX picture" % len(bars))
        check(all(lbl and w > 0 and inner <= w + 1 for lbl, w, inner in bars),
              "every bar has its label and stays within its track")
        check(p.eval("document.querySelectorAll('#aix table th[scope]').length") > 0, "the AIX tables' headers carry scope")

        p.call("Emulation.setEmulatedMedia", {"media": "print"})
        check(p.eval("getComputedStyle(document.querySelector('nav')).display") == "none", "print: navigation hidden")
        p.call("Emulation.setEmulatedMedia", {"media": ""})
        path = os.path.join(a.out, "report-aix.png")
        shot(p, path, full=True)
        check(os.path.getsize(path) > 10000, "screenshot written: %s" % path)
        b.drain(0.2)
        check(not [e for e in b.events if e["method"] == "Runtime.exceptionThrown"], "no exception")
    finally:
        b.close()
    finish()


if __name__ == "__main__":
    run(main)
