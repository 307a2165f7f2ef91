#!/usr/bin/env bash
# Same outputs before and after a refactor: runs a fixed set of commands with a build, masks
# what changes from run to run (times, rates, dates, the machine), and compares two such
# captures.
#
#   scripts/same-outputs.sh capture BIN OUTDIR        run the commands with BIN; normalised
#                                                     outputs, stderr and exit codes in OUTDIR
#   scripts/same-outputs.sh diff BEFORE AFTER         exit 0 when the captures are the same,
#                                                     1 with a diff otherwise
#   scripts/same-outputs.sh check BIN_BEFORE BIN_AFTER    capture both, then diff
#
# The commands (in a temporary directory holding a copy of datasets/minimal.txt) are the
# A bare `run` (every strategy), `run --report`, `report`, `compare --between`, `compare A B`, two
# `--shard` parts and their `merge`, and a run cut short then finished with `--resume`.
# OUTDIR/exit-codes.txt lists each with its exit status. A capture takes about a minute,
# most of it the quick start (every strategy).
#
# diff allows what a refactor may add: per-puzzle CSV columns (compared by BEFORE's column
# names) and JSON keys (compared by BEFORE's keys, recursively). Files are otherwise
# compared as text, and a file found on one side only is a difference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

temps=()
trap 'rm -rf "${temps[@]}"' EXIT

capture() {
    [ $# -eq 2 ] || usage
    local out work
    bin=$(realpath "$1")
    out=$(realpath -m "$2")
    [ -x "$bin" ] || { echo "same-outputs: $1: not an executable" >&2; exit 2; }
    if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
        echo "same-outputs: $out is not empty; give a new directory" >&2
        exit 2
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs.XXXXXX")
    temps+=("$work")
    mkdir -p "$work/datasets" "$out"
    cp "$root/datasets/minimal.txt" "$work/datasets/"
    echo "same-outputs: capturing $bin into $out" >&2
    (cd "$work" && commands)
    normalise "$work" "$out"
}

# step NAME ARGS...: `sudoku-bench ARGS` with its stdout and stderr kept as NAME.stdout and
# NAME.stderr; a failure is recorded, not fatal: it is an output like any other.
step() {
    local name=$1 status=0
    shift
    "$bin" "$@" >"$name.stdout" 2>"$name.stderr" </dev/null || status=$?
    echo "$name: exit $status: sudoku-bench $*" >>exit-codes.txt
}

commands() {
    local corpus=datasets/minimal.txt
    # One worker: the rows' order and the summaries' thread count do not depend on the
    # machine. Nothing here draws random numbers but compare's bootstrap, which is seeded.
    local opts=(-s fast,dlx,bitmask -j 1)
    # A bare `run`: every strategy, the built-in corpus, the CSV under
    # results/ named by the time (the name is masked like any date).
    step quickstart run
    step run run "$corpus" "${opts[@]}" -o run.csv --summary run.json --report run.html
    step run-md run "$corpus" "${opts[@]}" -o run2.csv --summary run2.md
    step run-summary-csv run "$corpus" "${opts[@]}" -o /dev/null --summary summary.csv
    step report-csv report run.csv -o report-csv.html
    step report report run.csv run.json -o report.html
    # dlx -> fast: a changed search, much faster; fast -> bitmask: 40x slower. Both verdicts
    # are far from a threshold, so they do not move with the machine's noise.
    local between=(--between dlx,fast --between fast,bitmask)
    step compare-between compare run.csv "${between[@]}"
    step compare-between-json compare run.csv "${between[@]}" --format json -o compare-between.json
    step compare-between-html compare run.csv "${between[@]}" --format html -o compare-between.html
    step compare-runs compare run.csv run2.csv
    step compare-runs-md compare run.csv run2.csv --format markdown
    for k in 1 2; do
        step "shard-$k" run "$corpus" "${opts[@]}" --shard "$k/2" -o "part-$k.csv" --summary "part-$k.json"
    done
    step merge merge part-1.csv part-2.csv -o merged.csv --summary merged.json
    # A killed run: its CSV cut after 100 rows and 40 bytes into the next one, its summary
    # empty (a run writes it at the end).
    step resume-first run "$corpus" "${opts[@]}" -o resumed.csv --summary resumed.json
    if [ -s resumed.csv ]; then
        head -c "$(($(head -n 101 resumed.csv | wc -c) + 40))" resumed.csv >resumed.cut
        mv resumed.cut resumed.csv
        : >resumed.json
    fi
    step resume run "$corpus" "${opts[@]}" -o resumed.csv --summary resumed.json --resume
}

# normalise WORK OUT: every output file of WORK (not the corpus), masked, into OUT.
normalise() {
    python3 - "$1" "$2" <<'PY'
import csv, io, json, os, re, sys

work, out = sys.argv[1:3]
DATE = re.compile(r'\d{4}-\d\d-\d\dT\d\d:?\d\d:?\d\dZ')
# A number with a time unit: a measured time (timeouts shown this way are masked with them).
TIME = re.compile(r'\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|us|ms|s)\b')
# Warnings about a heavy tail or preemptions come and go with the machine's load.
# A merge states the parts' CPUs only when they were the same ones.
NOISY_LINE = re.compile(
    r'slowest 1% of puzzles carry|were preempted \d+ times|held the workers off their cores'
    r'|^workers pinned to CPUs')
MASK = '<masked>'
# Which CPUs the workers were pinned to follows where the process started.
PINNED = re.compile(r'pinned to CPUs? [\d, -]+')
# The temporary directory the commands ran in.
WORKDIR = re.compile(re.escape(work.rstrip('/')))

def noisy_key(k):  # JSON keys and CSV columns: times, rates, and what depends on them
    return ((k.endswith('_ns') and k != 'timeout_ns') or 'per_s' in k or k in
            {'date', 'machine', 'machines', 'slowest_1pct_share', 'preemptions', 'times',
             'time_ratio', 'ci', 'pipes', 'throughput_ratio', 'throughput_ci', 'replicate'})  # a record's replicate follows the part sizes the pace sets

def noisy_heading(h):  # table headings in text, Markdown and HTML
    h = re.sub(r'<[^>]+>', '', h).strip().lower()
    return ('/s' in h or 'time' in h or 'preempt' in h or 'throughput' in h or
            h in {'mean', 'median', 'p50', 'p90', 'p99', 'max', '95% ci'})

def cell(heading, text, masked=MASK):  # "-" (not searched) stays: only numbers are noise
    return masked if noisy_heading(heading) and re.search(r'\d', text) else text

def json_mask(v):
    if isinstance(v, dict):
        return {k: MASK if noisy_key(k) else json_mask(x) for k, x in v.items()
                if k != 'placement'}  # present in a merge when the parts' CPUs were the same
    if isinstance(v, list):
        return [json_mask(x) for x in v]
    return v

def csv_mask(text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return text
    noisy = [noisy_key(h) for h in rows[0]]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator='\n')
    w.writerow(rows[0])
    for r in rows[1:]:
        w.writerow(['' if i < len(noisy) and noisy[i] else c for i, c in enumerate(r)])
    return buf.getvalue()

def aligned(block):
    # A table aligned with spaces (stderr, compare's table): columns are split where every
    # line has two or more blanks, then joined with ' | ' so that their widths, which follow
    # the times in them, do not count.
    width = max(map(len, block))
    gaps = ''.join(' ' if all(p >= len(l) or l[p] == ' ' for l in block) else 'x'
                   for p in range(width))
    spans = [m.span() for m in re.finditer(r'x+(?: x+)*', gaps)]
    heads = [block[0][a:b].strip() for a, b in spans]
    rows = [' | '.join(heads)]
    for l in block[1:]:
        rows.append(' | '.join(cell(h, l[a:b].strip()) for h, (a, b) in zip(heads, spans)))
    return rows

def text_mask(t):
    lines = [l for l in t.split('\n') if not NOISY_LINE.search(l)]
    out, i, heads = [], 0, None
    while i < len(lines):
        l = lines[i]
        if l.startswith('|'):  # Markdown table: the first row names the columns
            cells = l.strip().strip('|').split('|')
            if heads is None:
                heads = cells
            elif len(cells) == len(heads):
                l = '|' + '|'.join(cell(h, c, ' ' + MASK + ' ') for h, c in zip(heads, cells)) + '|'
            out.append(l)
            i += 1
            continue
        heads = None
        j = i
        while j < len(lines) and re.search(r'\S  +\S', lines[j]):
            j += 1
        if j - i >= 2:
            out += aligned(lines[i:j])
            i = j
        else:
            out.append(l)
            i += 1
    # Where dropped warnings were: blank lines around them, at the end of a Markdown summary.
    t = re.sub(r'\n{3,}', '\n\n', '\n'.join(out)).rstrip('\n')
    t = t + '\n' if t else ''
    t = WORKDIR.sub('<work>', PINNED.sub('pinned to CPUs <cpus>', t))
    return TIME.sub('<time>', DATE.sub('<date>', t))

def svg(m):  # plots are all times: keep what the plot is and its words, not its numbers
    label = re.search(r'aria-label="([^"]*)"', m.group())
    words = [w for w in re.findall(r'<text[^>]*>([^<]*)</text>', m.group()) if not re.search(r'\d', w)]
    return '<svg %s: %s/>' % (label.group(1) if label else '', ', '.join(words))

def html_table(m):
    heads = re.findall(r'<th[^>]*>(.*?)</th>', m.group(), flags=re.S)
    def row(r):
        k = iter(heads + [''] * 100)  # a row wider than its heading row: no heading
        return re.sub(r'(<td[^>]*>)(.*?)</td>', lambda c: c.group(1) + cell(next(k), c.group(2)) + '</td>',
                      r.group(), flags=re.S)
    return re.sub(r'<tr>.*?</tr>', row, m.group(), flags=re.S)

def html_mask(t):
    t = '\n'.join(l for l in t.split('\n') if not NOISY_LINE.search(l))
    t = WORKDIR.sub('<work>', t)
    t = re.sub(r'<details class="warn"><summary>[^<]*</summary>\n</details>\n?', '', t)
    t = re.sub(r'\d+ (warnings? about how far these times)', r'<n> \1', t)
    # compare's counts of slower and faster puzzles, its ratios and the histogram's range.
    t = re.sub(r'.* timed on both sides: .*',
               lambda l: re.sub(r'\d[\d,./]*x?', '<n>', l.group()), t)
    # Whether some puzzles fall outside the histogram's range is timing too.
    t = re.sub(r'; the end bins also hold the <n> puzzles below and the <n> above that range\.',
               '.', t)
    t = re.sub(r'<svg.*?</svg>', svg, t, flags=re.S)
    # Which puzzles are the slowest is itself timing: keep only how many are listed.
    t = re.sub(r'<h3>Slowest puzzles</h3>.*?(?=<h[23]>|</body>)',
               lambda s: re.sub(r'<tbody>.*?</tbody>',
                                lambda b: '<tbody>%d rows</tbody>' % b.group().count('<tr>'),
                                s.group(), flags=re.S),
               t, flags=re.S)
    t = re.sub(r'<table[^>]*>.*?</table>', html_table, t, flags=re.S)
    t = WORKDIR.sub('<work>', PINNED.sub('pinned to CPUs <cpus>', t))
    return TIME.sub('<time>', DATE.sub('<date>', t))

for dirpath, dirs, files in os.walk(work):
    dirs[:] = [d for d in dirs if os.path.join(dirpath, d) != os.path.join(work, 'datasets')]
    for f in files:
        src = os.path.join(dirpath, f)
        rel = DATE.sub('DATE', os.path.relpath(src, work))
        with open(src, encoding='utf-8', errors='replace') as fh:
            t = fh.read()
        if f.endswith('.csv'):
            t = csv_mask(t)
        elif f.endswith('.json'):
            try:
                t = json.dumps(json_mask(json.loads(t)), indent=2, ensure_ascii=False) + '\n'
            except ValueError:  # an empty or cut summary is compared as it is
                pass
        elif f.endswith('.html'):
            t = html_mask(t)
        else:
            t = text_mask(t)
        dst = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'w', encoding='utf-8') as fh:
            fh.write(t)
PY
}

compare_dirs() {
    [ $# -eq 2 ] || usage
    for d in "$1" "$2"; do
        [ -d "$d" ] || { echo "same-outputs: $d: not a directory" >&2; exit 2; }
    done
    python3 - "$1" "$2" <<'PY'
import csv, difflib, io, json, os, sys

before, after = sys.argv[1:3]
SHOWN = 60  # diff lines shown per file

def files(d):
    return {os.path.relpath(os.path.join(p, f), d) for p, _, fs in os.walk(d) for f in fs}

def project(a, b):  # AFTER's JSON cut down to the keys BEFORE's has
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: project(a[k], b[k]) for k in b if k in a}
    if isinstance(a, list) and isinstance(b, list):
        return [project(x, y) for x, y in zip(a, b)] + a[len(b):]
    return a

def columns(text, names):  # the CSV's rows with only the columns named, in that order
    rows = list(csv.reader(io.StringIO(text)))
    idx = [rows[0].index(n) for n in names] if rows else []
    buf = io.StringIO()
    csv.writer(buf, lineterminator='\n').writerows(
        [r[i] if i < len(r) else '<short row>' for i in idx] for r in rows)
    return buf.getvalue().splitlines()

def lines(f):
    b = open(os.path.join(before, f), encoding='utf-8', errors='replace').read()
    a = open(os.path.join(after, f), encoding='utf-8', errors='replace').read()
    if f.endswith('.csv'):
        names = next(csv.reader(io.StringIO(b)), [])
        missing = [n for n in names if n not in next(csv.reader(io.StringIO(a)), [])]
        if missing:  # one line says it, rather than a diff of every row
            return ['columns: ' + ','.join(names)], ['columns missing: ' + ','.join(missing)]
        return columns(b, names), columns(a, names)
    if f.endswith('.json'):
        try:
            bj, aj = json.loads(b), json.loads(a)
            dump = lambda v: json.dumps(v, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
            return dump(bj), dump(project(aj, bj))
        except ValueError:
            pass
    return b.splitlines(), a.splitlines()

def main():
    same = True
    bf, af = files(before), files(after)
    for f in sorted(bf | af):
        if f not in af or f not in bf:
            print('%s: only in %s' % (f, before if f in bf else after))
            same = False
            continue
        b, a = lines(f)
        if b != a:
            same = False
            d = list(difflib.unified_diff(b, a, 'before/' + f, 'after/' + f, lineterm='', n=2))
            print('\n'.join(d[:SHOWN]))
            if len(d) > SHOWN:
                print('... %d more diff lines in %s' % (len(d) - SHOWN, f))
    print('same-outputs: %s' % ('same' if same else 'DIFFERENT'), file=sys.stderr)
    return 0 if same else 1

try:
    sys.exit(main())
except Exception as e:  # exit 1 means "different" and nothing else
    print('same-outputs: diff failed: %r' % e, file=sys.stderr)
    sys.exit(2)
PY
}

check() {
    [ $# -eq 2 ] || usage
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs-check.XXXXXX")
    temps+=("$dir")
    capture "$1" "$dir/before"
    capture "$2" "$dir/after"
    compare_dirs "$dir/before" "$dir/after"
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
    capture) capture "$@" ;;
    diff) compare_dirs "$@" ;;
    check) check "$@" ;;
    *) usage ;;
esac
