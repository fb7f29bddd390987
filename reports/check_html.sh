#!/usr/bin/env bash
# report-check: render the HTML report in headless Chromium and check that it
# renders: every timeline <svg> of the file is in Chromium's DOM, nothing was
# fetched from the network (the flags below and a fresh profile forbid it), and
# a screenshot is written for a person to look at.
#
#   reports/check_html.sh [REPORT.html [SCREENSHOT.png]]
#
# Defaults: out/report/report.html, its name with .png. Needs Chromium
# (Debian: apt-get install chromium). Exit 0 ok, 1 check failed, 2 setup error.
set -euo pipefail
html=${1:-out/report/report.html}
png=${2:-${html%.html}.png}
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	echo "report-check: Chromium not found (Debian: apt-get install chromium)" >&2
	exit 2
fi
if [ ! -s "$html" ]; then
	echo "report-check: $html is missing (make report-check writes it)" >&2
	exit 2
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
	--disable-sync --no-first-run --user-data-dir="$profile" --hide-scrollbars)
url="file://$(realpath "$html")"

want=$(grep -o '<svg class="timeline"' "$html" | wc -l)
got=$("$chrome" "${flags[@]}" --dump-dom "$url" 2>/dev/null | grep -o '<svg class="timeline"' | wc -l)
if [ "$want" -eq 0 ] || [ "$got" -ne "$want" ]; then
	echo "report-check: $html has $want timeline pictures, Chromium's DOM has $got" >&2
	exit 1
fi
if grep -Eiq '(src|href)="(https?:)?//|<script|url\(' "$html"; then
	echo "report-check: $html refers to something outside the file" >&2
	exit 1
fi
rm -f "$png"
"$chrome" "${flags[@]}" --window-size=1240,4000 --screenshot="$png" "$url" >/dev/null 2>&1
if [ ! -s "$png" ] || [ "$(wc -c <"$png")" -lt 20000 ]; then
	echo "report-check: no screenshot, or a blank one, at $png" >&2
	exit 1
fi
echo "report-check: $got timelines render; screenshot $png"
