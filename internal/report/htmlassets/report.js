(function () {
  "use strict";
  var boxes = Array.prototype.slice.call(document.querySelectorAll("#filters input[type=checkbox]"));
  var findings = Array.prototype.slice.call(document.querySelectorAll("article.finding"));
  var areas = Array.prototype.slice.call(document.querySelectorAll("section.area"));
  var shown = document.getElementById("shown");
  function chosen(kind) {
    var s = {};
    boxes.forEach(function (b) { if (b.getAttribute("data-filter") === kind && b.checked) { s[b.value] = true; } });
    return s;
  }
  function apply() {
    var sev = chosen("severity"), area = chosen("area"), n = 0;
    findings.forEach(function (f) {
      var on = !!(sev[f.getAttribute("data-severity")] && area[f.getAttribute("data-area")]);
      f.hidden = !on;
      if (on) { n++; }
    });
    areas.forEach(function (a) {
      a.hidden = a.querySelectorAll("article.finding:not([hidden])").length === 0;
    });
    if (shown) {
      shown.setAttribute("data-shown", String(n));
      shown.textContent = "Showing " + n + " of " + findings.length + " " + (shown.getAttribute("data-noun") || "findings");
    }
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  var all = document.getElementById("filter-reset");
  if (all) {
    all.addEventListener("click", function () { boxes.forEach(function (b) { b.checked = true; }); apply(); });
  }
  apply();

  function copied(btn, ok) {
    var old = btn.getAttribute("data-label") || btn.textContent;
    btn.setAttribute("data-label", old);
    btn.textContent = ok ? "Copied" : "Select and copy";
    setTimeout(function () { btn.textContent = old; }, 1500);
  }
  function fallback(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.left = "-9999px";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (btn) {
    btn.addEventListener("click", function () {
      var src = document.getElementById(btn.getAttribute("data-copy"));
      if (!src) { return; }
      var text = src.textContent;
      document.body.setAttribute("data-last-copy", text);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { copied(btn, true); }, function () { copied(btn, fallback(text)); });
      } else {
        copied(btn, fallback(text));
      }
    });
  });

  // Printing shows every collapsed detail.
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.setAttribute("data-closed", "1");
      d.open = true;
    });
  });
  window.addEventListener("afterprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details[data-closed]"), function (d) {
      d.removeAttribute("data-closed");
      d.open = false;
    });
  });
})();
