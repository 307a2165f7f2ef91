#!/usr/bin/env bash
# A headless Chromium for the HTML reports: installs it, and renders a page to PNG.
#
#   scripts/browser.sh install
#       Make sure Chromium is there. As root with apt-get (a CI machine, a container), installs
#       Debian's `chromium` quietly; otherwise says what to install and exits 1.
#   scripts/browser.sh png PAGE.html OUT.png [WIDTH [HEIGHT]]
#       Render PAGE.html WIDTH CSS pixels wide (default 1200) to OUT.png. Without HEIGHT the
#       whole page is taken (measured by a first headless load), up to 20,000 px.
#
# Environment: CHROMIUM, the browser to run (default `chromium`); BROWSER_TIMEOUT, seconds
# one browser start may take before it is killed (default 60), so a stuck browser never hangs
# a test or CI.
set -euo pipefail

browser=${CHROMIUM:-chromium}
time_limit=${BROWSER_TIMEOUT:-60}
# A longer page is cut here, so a runaway page cannot make a PNG of hundreds of megabytes
# (Chromium renders 30,000 px tall in software; the cap is not its limit).
MAX_HEIGHT=20000

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

have_browser() {
    command -v "$browser" >/dev/null 2>&1
}

install() {
    if have_browser; then
        echo "browser: $("$browser" --version 2>/dev/null | head -n 1)"
        return 0
    fi
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        cat >&2 <<EOF
browser.sh: '$browser' not found. Install Chromium, e.g. on Debian or Ubuntu:
    sudo apt-get install chromium fonts-liberation
or point CHROMIUM at a Chromium or Chrome binary.
EOF
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    # A fresh image often has no package lists; fetch them only then, it takes a while.
    if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        apt-get update -qq
    fi
    # fonts-liberation: the page's text needs a font; the other recommends (a GL driver,
    # udev, a notification daemon) serve a desktop, not a headless render.
    apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
    have_browser || { echo "browser.sh: installed chromium, but '$browser' is still not found" >&2; exit 1; }
    echo "browser: $("$browser" --version 2>/dev/null | head -n 1)"
}

# Run the browser headless on a temporary profile (so runs in parallel do not meet through a
# shared one), killed after $time_limit seconds. --no-sandbox: Chromium refuses to run as root
# with its sandbox, and containers often lack the namespaces it needs; the pages rendered are
# the tool's own local files, with no script and nothing fetched.
run_browser() {
    local log=$work/browser.log
    if ! timeout --kill-after=5 "$time_limit" "$browser" \
        --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --hide-scrollbars --force-device-scale-factor=1 \
        --no-first-run --no-default-browser-check --disable-extensions \
        --user-data-dir="$work/profile" "$@" </dev/null 2>"$log"; then
        echo "browser.sh: '$browser' failed or took over ${time_limit}s; its log:" >&2
        tail -n 20 "$log" >&2
        return 1
    fi
}

# The page's full height at this width: a copy of it, with a line of script that writes the
# laid-out height into the DOM, loaded headless and dumped.
page_height() {
    local page=$1 width=$2
    { cat "$page"; echo '<script>document.documentElement.dataset.pageHeight = document.documentElement.scrollHeight;</script>'; } >"$work/measure.html"
    run_browser --window-size="$width,100" --dump-dom "file://$work/measure.html" >"$work/dom.html"
    sed -n 's/.*data-page-height="\([0-9]*\)".*/\1/p' "$work/dom.html" | head -n 1
}

png() {
    if [ $# -lt 2 ] || [ $# -gt 4 ]; then usage; fi
    local page=$1 out=$2 width=${3:-1200} height=${4:-}
    [ -f "$page" ] || { echo "browser.sh: $page: no such file" >&2; exit 2; }
    [[ $width =~ ^[1-9][0-9]*$ ]] || { echo "browser.sh: width '$width' is not a positive number" >&2; exit 2; }
    [ -z "$height" ] || [[ $height =~ ^[1-9][0-9]*$ ]] || { echo "browser.sh: height '$height' is not a positive number" >&2; exit 2; }
    have_browser || { echo "browser.sh: '$browser' not found; run scripts/browser.sh install" >&2; exit 1; }

    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    page=$(realpath "$page")
    out=$(realpath -m "$out")

    if [ -z "$height" ]; then
        height=$(page_height "$page" "$width")
        [ -n "$height" ] || { echo "browser.sh: could not measure the height of $page" >&2; exit 1; }
        if [ "$height" -gt "$MAX_HEIGHT" ]; then
            echo "browser.sh: $page is ${height}px tall; taking its top ${MAX_HEIGHT}px" >&2
            height=$MAX_HEIGHT
        fi
    fi

    rm -f "$out"
    run_browser --window-size="$width,$height" --screenshot="$out" "file://$page" >/dev/null
    [ -s "$out" ] || { echo "browser.sh: '$browser' wrote no screenshot to $out" >&2; exit 1; }
    echo "wrote $out (${width}x${height}, $(wc -c <"$out") bytes)"
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
    install) [ $# -eq 0 ] || usage; install ;;
    png) png "$@" ;;
    *) usage ;;
esac
