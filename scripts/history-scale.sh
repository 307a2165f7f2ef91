#!/usr/bin/env bash
# Times `history check` and `history report` on histories of many commits (issue 38: a
# team's history of thousands of commits must be checked in about a second).
#
#   scripts/history-scale.sh [N...]        (default 500 1000 2000 5000)
#
#   SUDOKU_BENCH=PATH  the sudoku-bench timed (default: this tree's, built with cargo build
#                      --release): point it at an older build to time that one on the same
#                      histories
#   TIMEOUT=SECONDS    give up on one command after this long (default 1800): it is printed
#                      as "> SECONDS s"
#   HISTORY_SCALE_DIR=DIR  where the histories are made (default target/history-scale)
#
# Each history is one real run of `fast` on datasets/minimal.txt, recorded with `history add`,
# then copied to N commits an hour apart (python3's sqlite3 writes the copies: N real runs
# would take hours and time nothing `check` reads differently), each copy's median rate the
# run's times a level and a noise: the noise drawn (fixed seed) from a normal of 2.5%, the
# spread of `fast`'s median rate measured on this project's machine (crates/analysis/src/history/changes.rs);
# the level 1 up to 40% of the commits, 1 / 1.1 (10% slower) from there to 70%, then 1 again.
# So each history has one series of median rates with two real changes, and the noise
# between them that the detection must find quiet.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(500 1000 2000 5000)
for n in "${sizes[@]}"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "history-scale.sh: N '$n' is not a positive number" >&2; exit 2; }
done
timeout=${TIMEOUT:-1800}
work=${HISTORY_SCALE_DIR:-target/history-scale}
bin=${SUDOKU_BENCH:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench
fi
mkdir -p "$work"
rm -f "$work/one.sqlite"
"$bin" run datasets/minimal.txt -s fast -q -o /dev/null --summary "$work/one.json"
"$bin" history add "$work/one.json" --commit "$(printf 0 | sha1sum | cut -c1-40)" --time 1700000000 \
    --db "$work/one.sqlite" >/dev/null

echo "sudoku-bench: $bin"
echo "CPU: $(scripts/cpu-name.sh "$bin"), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${sizes[@]}"; do
    db=$work/n$n.sqlite
    rm -f "$db"
    cp "$work/one.sqlite" "$db"
    python3 - "$db" "$n" <<'EOF'
import hashlib, random, sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
con = sqlite3.connect(db)
rng = random.Random(38)
run_columns = [r[1] for r in con.execute("PRAGMA table_info(runs)") if r[1] != "id"]
row_columns = [r[1] for r in con.execute("PRAGMA table_info(rows)")]
status_columns = [r[1] for r in con.execute("PRAGMA table_info(statuses)")]
_, first_time = con.execute("SELECT sha, time FROM commits").fetchone()
(first_run,) = con.execute("SELECT id FROM runs").fetchone()
run = con.execute(f"SELECT {', '.join(run_columns)} FROM runs WHERE id = ?", (first_run,)).fetchone()
rows = con.execute("SELECT * FROM rows WHERE run = ?", (first_run,)).fetchall()
statuses = con.execute("SELECT * FROM statuses WHERE run = ?", (first_run,)).fetchall()
rate_at = row_columns.index("median_rate")
for i in range(n):
    level = 1 / 1.1 if 0.4 * n <= i < 0.7 * n else 1.0
    noise = 1 + rng.gauss(0, 0.025)
    if i == 0:
        con.execute("UPDATE rows SET median_rate = median_rate * ?", (level * noise,))
        continue
    sha = hashlib.sha1(str(i).encode()).hexdigest()
    con.execute("INSERT INTO commits (sha, time, branch) VALUES (?, ?, NULL)", (sha, first_time + 3600 * i))
    values = dict(zip(run_columns, run))
    values.update(sha=sha, digest=f"{values['digest']}-{i}")
    cur = con.execute(
        f"INSERT INTO runs ({', '.join(run_columns)}) VALUES ({', '.join('?' * len(run_columns))})",
        [values[c] for c in run_columns],
    )
    run_id = cur.lastrowid
    for row in rows:
        row = list(row)
        row[0] = run_id
        row[rate_at] = row[rate_at] * level * noise
        con.execute(f"INSERT INTO rows VALUES ({', '.join('?' * len(row))})", row)
    for status in statuses:
        status = list(status)
        status[0] = run_id
        con.execute(f"INSERT INTO statuses VALUES ({', '.join('?' * len(status))})", status)
con.commit()
EOF
    for command in check report; do
        args=(history "$command" --db "$db")
        [ "$command" = report ] && args+=(-o "$work/n$n.html")
        start=$(date +%s.%N)
        status=0
        timeout "$timeout" "$bin" "${args[@]}" >"$work/n$n.$command.out" 2>&1 || status=$?
        end=$(date +%s.%N)
        case $status in
            0 | 1) awk -v s="$start" -v e="$end" -v n="$n" -v c="$command" \
                'BEGIN {printf "%5d commits: history %-6s %8.2f s\n", n, c, e - s}' ;;
            124) printf '%5d commits: history %-6s > %s s\n' "$n" "$command" "$timeout" ;;
            *) echo "history-scale.sh: history $command of $n commits failed ($status): see $work/n$n.$command.out" >&2
               exit 1 ;;
        esac
    done
done
