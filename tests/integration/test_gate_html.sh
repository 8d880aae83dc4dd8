#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate's HTML page in a real browser (headless Chromium), from recorded
# reports (tests/data/noise: `run --suite all --scale 4`, Debian 7.x guests,
# arm64 and x86_64, with the per-path batch histograms; one boot each as
# the baseline, another as the candidate, one candidate histogram edited
# to span 1 to 8G PTEs so that one chart is wider than the page gives it):
#   (a) the page is self-contained: no <script>, no external reference;
#   (b) a screenshot is a PNG of the window's size, not blank;
#   (c) measured in the browser (a copy of the page with a test-side
#       script, which writes its findings into the DOM): no SVG text
#       outside its viewBox, no caption wider than its box, every chart at
#       least 400 px wide with labels of 11 px or more, and as many
#       events in its bars (their tooltips) as its caption says;
#   (d) "Batch histograms" holds every histogram of the reports not counted
#       in time (mremap, fault-around, contpte), each with one baseline and
#       one candidate chart side by side; mremap latency is in "Latency
#       histograms" only;
#   (f) the batch histograms are grouped per path, one subheading each
#       (the first part of their ids): the arm64 boots' fork histograms,
#       two sources listed apart in the report, both under "fork";
#   (e) each skipped check shows the report's reason in the checks table.
# No guest boots: a few seconds.
#
# Usage: bash test_gate_html.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed, 4 skipped (no
# chromium: scripts/install-deps installs it).

set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_gate_html "$@"
DATA=$ROOT/tests/data/noise
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"

if ! command -v chromium >/dev/null; then
	echo "1..0 # SKIP chromium not installed (scripts/install-deps installs it)"
	exit 4
fi
TAP_LOG=$tmp/log
W=1280 H=2000

# browser ARGS... URL: headless Chromium with a private profile (root
# needs --no-sandbox); stderr (mostly dbus chatter) to its own log.
browser() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --window-size="$W,$H" "$@" 2>>"$tmp/chromium.log"
}

# The candidate's x86_64 boot with one bucket of 8G PTEs more: a chart of
# 47 slots, whose labels run long.
python3 - "$DATA/x86_64-7-run2.json" "$tmp/x86_64-cand.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
h = next(h for h in r["histograms"] if h["name"] == "mremap present PTEs moved per call")
h["buckets"].append({"low": 1 << 33, "high": (1 << 34) - 1, "count": 5})
h["total"] += 5
json.dump(r, open(sys.argv[2], "w"))
EOF
base=("$DATA/arm64-7-run1.json" "$DATA/x86_64-7-run1.json")
cand=("$DATA/arm64-7-run2.json" "$tmp/x86_64-cand.json")
page=$tmp/gate.html
"$PTECHECK" gate --baseline "${base[0]}" --baseline "${base[1]}" --html "$page" \
	"${cand[@]}" >"$TAP_LOG" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$page" ]; then
	not_ok "gate writes the HTML page (exit $rc)"
	tap_end
fi
ok "gate writes the HTML page"

# (a)
refs=$(grep -oiE '<script|<link|<img|<iframe|(src|href)=|@import|url\(' "$page" | sort -u)
if [ -z "$refs" ]; then
	ok "the page is self-contained: no script, no external resource"
else
	not_ok "the page is self-contained: no script, no external resource" "$refs"
fi

# (b) The PNG header: signature, IHDR width and height; not blank: a page
# of one colour deflates to a few KiB and a handful of byte values.
browser --screenshot="$tmp/gate.png" "file://$page" >>"$tmp/chromium.log"
if why=$(python3 - "$tmp/gate.png" "$W" "$H" 2>&1 <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
    sys.exit("not a PNG")
w, h, depth, color = struct.unpack(">IIBB", data[16:26])
if (w, h) != (int(sys.argv[2]), int(sys.argv[3])):
    sys.exit(f"{w}x{h}, expected {sys.argv[2]}x{sys.argv[3]}")
idat, pos = b"", 8
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
if len(idat) < 20000 or len(set(raw)) < 64:
    sys.exit(f"blank: {len(idat)} bytes of image data, {len(set(raw))} byte values")
EOF
); then
	ok "screenshot: a ${W}x$H PNG, not blank"
else
	not_ok "screenshot: a ${W}x$H PNG, not blank" "$why" "$tmp/chromium.log"
fi

# (c), (d), (e): the page with a measuring script before </body> (the
# page itself has none), its verdict as JSON in <pre id="verdict">.
sed 's|</body>|<script>\n__MEASURE__\n</script></body>|' "$page" >"$tmp/measure.html"
python3 - "$tmp/measure.html" <<'EOF'
import sys
p = sys.argv[1]
js = r"""
(function () {
  var v = {clipped: [], narrow: [], small: [], lost: [], capwide: [], batch: {}, latency: [],
           why: []};
  function corners(t, m) {
    var b = t.getBBox();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height],
            [b.x + b.width, b.y + b.height]].map(function (p) {
      return new DOMPoint(p[0], p[1]).matrixTransform(m);
    });
  }
  document.querySelectorAll("svg").forEach(function (svg, i) {
    var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    if (!vb || !vb.width)
      vb = {x: 0, y: 0, width: svg.width.baseVal.value, height: svg.height.baseVal.value};
    var inv = svg.getScreenCTM().inverse(), scale = r.width / vb.width;
    if (r.width < 400) v.narrow.push(i + ": " + Math.round(r.width) + " px");
    svg.querySelectorAll("text").forEach(function (t) {
      var m = inv.multiply(t.getScreenCTM());
      corners(t, m).forEach(function (p) {
        if (p.x < vb.x - 0.5 || p.y < vb.y - 0.5 || p.x > vb.x + vb.width + 0.5 ||
            p.y > vb.y + vb.height + 0.5)
          v.clipped.push(i + ": '" + t.textContent + "' at " + Math.round(p.x) + "," +
                         Math.round(p.y) + " outside " + vb.width + "x" + vb.height);
      });
      var px = parseFloat(t.getAttribute("font-size")) * scale;
      if (px < 11) v.small.push(i + ": '" + t.textContent + "' " + px.toFixed(1) + " px");
    });
  });
  document.querySelectorAll(".cap").forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1) v.capwide.push(c.textContent);
  });
  document.querySelectorAll(".chart").forEach(function (c) {
    var m = /: (\d+) events/.exec(c.querySelector(".cap").textContent), sum = 0;
    c.querySelectorAll("rect title").forEach(function (t) {
      sum += parseInt(/: (\d+) \(/.exec(t.textContent)[1], 10);
    });
    if (m && parseInt(m[1], 10) != sum)
      v.lost.push(c.querySelector(".cap").textContent + ": " + sum + " in the bars");
  });
  document.querySelectorAll("section.batch .hist").forEach(function (h) {
    var name = h.querySelector("h4").textContent;
    var b = h.querySelectorAll(".chart.baseline"), c = h.querySelectorAll(".chart.candidate");
    var e = {baseline: b.length, candidate: c.length, side_by_side: false};
    if (b.length == 1 && c.length == 1) {
      var rb = b[0].getBoundingClientRect(), rc = c[0].getBoundingClientRect();
      e.side_by_side = Math.abs(rb.top - rc.top) < 2 && rb.right <= rc.left;
    }
    (v.batch[name] = v.batch[name] || []).push(e);
  });
  document.querySelectorAll("section.latency h4").forEach(function (h) {
    v.latency.push(h.textContent);
  });
  v.paths = [];
  v.outside = [];
  document.querySelectorAll("section.batch").forEach(function (sec, i) {
    sec.querySelectorAll("div.path").forEach(function (d) {
      var names = [], ids = [];
      d.querySelectorAll(".hist > h4").forEach(function (h) {
        names.push(h.textContent);
        ids.push(h.parentNode.dataset.id);
      });
      v.paths.push({section: i, path: d.querySelector("h4.path").textContent, names: names,
                    ids: ids});
    });
    sec.querySelectorAll(".hist").forEach(function (h) {
      if (!h.closest("div.path")) v.outside.push(h.querySelector("h4").textContent);
    });
  });
  document.querySelectorAll("table.checks td.skip .why").forEach(function (d) {
    v.why.push(d.textContent);
  });
  var pre = document.createElement("pre");
  pre.id = "verdict";
  pre.textContent = JSON.stringify(v);
  document.body.appendChild(pre);
})();
"""
s = open(p).read().replace("__MEASURE__", js)
open(p, "w").write(s)
EOF
browser --dump-dom "file://$tmp/measure.html" >"$tmp/dom.html"

# check NAME PYTHON: PYTHON sees v (the verdict) and reports (the input
# reports, baseline then candidate); a non-empty result is the failure.
check() {
	local why rc
	why=$(python3 - "$tmp/dom.html" "${base[@]}" "${cand[@]}" <<EOF 2>&1
import html, json, re, sys
m = re.search(r'<pre id="verdict">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
if not m:
    sys.exit("no verdict in the DOM: the measuring script did not run")
v = json.loads(html.unescape(m.group(1)))
reports = [json.load(open(f)) for f in sys.argv[2:]]
$2
EOF
	)
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$why" ]; then
		ok "$1"
	else
		# Chromium's log only when its script did not run: else it is noise.
		case $why in
		*"no verdict"*) not_ok "$1" "$why" "$tmp/chromium.log" ;;
		*) not_ok "$1" "$why" /dev/null ;;
		esac
	fi
}

check "browser: no SVG text outside its viewBox, no caption cut" '
for k in ("clipped", "capwide"):
    for x in v[k][:10]:
        print(k, x)'
check "browser: every chart 400 px wide or more, labels 11 px or more, every event in a bar" '
for k in ("narrow", "small", "lost"):
    for x in v[k][:10]:
        print(k, x)'
check "browser: Batch histograms: every non-time histogram, baseline and candidate side by side" '
times = {"ns", "us", "ms", "s"}
# One entry per group (arm64, x86_64) in which the histogram has events.
groups = {}
for r in reports:
    for h in r["histograms"]:
        if h["unit"] not in times and h["total"] > 0:
            groups.setdefault(h["name"], set()).add(r["kernel"]["machine"])
for name, machines in groups.items():
    got = [e for e in v["batch"].get(name, []) if e["baseline"] or e["candidate"]]
    if len(got) != len(machines):
        print(f"{name}: charts in {len(got)} groups, events in {len(machines)}")
    for e in got:
        if e != {"baseline": 1, "candidate": 1, "side_by_side": True}:
            print(f"{name}: {e}")
for p in ("mremap", "fault-around", "contpte"):
    if not any(n.startswith(p) for n in groups):
        print(f"no {p} histogram in the fixtures")
if "mremap latency" in v["batch"]:
    print("mremap latency in Batch histograms")
if "mremap latency" not in v["latency"]:
    print("mremap latency not in Latency histograms")'
check "browser: batch histograms grouped per path, fork's sources under one subheading" '
seen = set()
for p in v["paths"]:
    if (p["section"], p["path"]) in seen:
        print("path twice in one group:", p["path"])
    seen.add((p["section"], p["path"]))
    for i in p["ids"]:
        if i.split("/")[0] != p["path"]:
            print(i, "under", p["path"])
fork = [p["names"] for p in v["paths"] if p["path"] == "fork"]
want = [h["name"] for h in reports[0]["histograms"]
        if h["name"].startswith("fork PTEs per") and h["total"] > 0]
# One "fork" per machine group: the arm64 one holds its sources (two,
# contpte_set_ptes and contpte_wrprotect_ptes, since the run keeps its own
# memory in small folios: its forks batch nothing).
arm = [f for f in fork if any("contpte" in n for n in f)]
if len(want) < 2 or len(arm) != 1 or sorted(arm[0]) != sorted(want):
    print("fork groups:", fork, "wanted one of", want)
for x in v["outside"]:
    print("not under a path:", x)'
check "browser: each skipped check shows its reason" '
skips = {r["summary"] for rep in reports for r in rep["results"] if r["status"] == "skip"}
if not skips:
    print("no skip in the fixtures")
for s in sorted(skips - set(v["why"])):
    print("reason not shown:", s[:100])'
tap_end
