#!/usr/bin/env bash
# clarity fleet: the incremental index (an unchanged second run reads nothing, a grown
# .inprogress log is read again by every plain run, a completed log rewritten in place is
# missed by a plain run and read by --verify, a rename from .inprogress, a vanished log, a
# vanished subdirectory and a dangling link are marked deleted, a README is not an entry, a
# rolling and a Spark 1.x directory are one entry each and a new rolling part is read), the
# queries on fixtures with worked values, the History Server JSON kept per attempt, shards
# (--plan, --only, merge) and the Dask LocalCluster (2 worker processes) giving the same
# store as a local run. Fixtures: copies of tests/data/mini-3x.json (worked values below)
# with other ids, names, users and end times, two real logs of tests/data, and two application
# directories of $SHARED_DATA (SKIP when absent).
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
C="$CLARITY"
MINI="$ROOT/tests/data/mini-3x.json"
command -v sqlite3 >/dev/null || { skip "fleet: sqlite3 (Debian package sqlite3) not installed"; summary; exit; }
command -v jq >/dev/null || { skip "fleet: jq not installed"; summary; exit; }

# mini-3x.json as another run: app id suffix $1, name $2, user $3, application end at start + $4 ms
variant() {
  local end=$((1704067200000 + $4))
  sed -e "s/app-20240101000000-0001/app-20240101000000-$1/g" -e "s/\"App Name\":\"mini\"/\"App Name\":\"$2\"/" \
      -e "s/\"User\":\"alice\"/\"User\":\"$3\"/" -e "s/\"user.name\":\"alice\"/\"user.name\":\"$3\"/" \
      -e "s/{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":1704067205000}/{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":$end}/" "$MINI"
}
L="$T/logs"; mkdir -p "$L/team-a" "$L/team-b"
variant 0001 nightly alice 5000 >"$L/team-a/app-20240101000000-0001"
variant 0002 nightly alice 5000 >"$L/team-a/app-20240101000000-0002"
variant 0003 nightly bob 5000 >"$L/team-a/app-20240101000000-0003"
variant 0004 nightly bob 200000 >"$L/team-b/app-20240101000000-0004"   # the slow run
cp "$ROOT/tests/data/spark-1.2-local-1422981780767.json" "$L/team-b/local-1422981780767"
cp "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" "$L/team-b/app-20200706201101-0003"
S="$T/fleet.db"

stat_of() { jq -r ".stats.$2" "$1"; }

# ---- first run: everything is new
"$C" fleet index "$L" --store "$S" --json >"$T/r1.json" 2>"$T/err"; rc=$?
[ $rc = 0 ] && ok "first index exits 0" || bad "first index exit $rc: $(head -2 "$T/err")"
[ "$(stat_of "$T/r1.json" entries)/$(stat_of "$T/r1.json" new)/$(stat_of "$T/r1.json" read)/$(stat_of "$T/r1.json" apps)" = "6/6/6/6" ] \
  && ok "first run: 6 entries, 6 new, 6 read, 6 attempts" || bad "first run stats: $(jq -c .stats "$T/r1.json")"
[ "$(sqlite3 "$S" 'PRAGMA user_version'; sqlite3 "$S" "SELECT value FROM meta WHERE key='schema'")" = "1
clarity.store/1" ] && ok "store schema clarity.store/1, user_version 1" || bad "store version"

# ---- second run over the unchanged directory reads nothing
"$C" fleet index "$L" --store "$S" --json >"$T/r2.json"
[ "$(stat_of "$T/r2.json" unchanged)/$(stat_of "$T/r2.json" read)/$(stat_of "$T/r2.json" bytes_read)" = "6/0/0" ] \
  && ok "second run: 6 unchanged, 0 read, 0 bytes" || bad "second run stats: $(jq -c .stats "$T/r2.json")"

# ---- worked values of mini-3x (app end at +5 s): executor 1 holds 4 cores from +1.0 s to the
# end at +5.0 s (16 core-s), executor 2 from +1.5 s to its removal at +4.0 s (10 core-s): 26
# core-s = 0.007222 core-h; tasks ran 3.4 s, so idle = 22.6 core-s = 0.006278 core-h; GC 40 ms of
# 2020 ms run time = 0.019802; 4 task attempts, 1 failed. The slow run (end at +200 s): executor 1 held
# 199 s x 4 = 796 core-s, + 10 = 806 core-s = 0.223889 core-h.
"$C" fleet query "$S" --name nightly --sort start --limit 0 --csv >"$T/q.csv"
row1=$(grep '^"app-20240101000000-0001"' "$T/q.csv" | cut -d, -f1,3,4,10,13,14,15,16,17)
[ "$row1" = '"app-20240101000000-0001","nightly","alice",5000,0.007222,0.006278,0.019802,4,1' ] \
  && ok "mini row: 5000 ms, 0.007222 core-h, 0.006278 idle, GC 0.019802, 4 tasks, 1 failed" || bad "mini row: $row1"
top=$("$C" fleet query "$S" --sort core-hours --limit 2 --csv | sed -n 2,3p | cut -d, -f1,13)
[ "$top" = '"app-20200706201101-0003",1.604058
"app-20240101000000-0004",0.223889' ] && ok "--sort core-hours: the 3.1 log, then the slow run (0.223889)" || bad "top by core-hours: $top"
dur=$("$C" fleet query "$S" --sort duration --limit 1 --json | jq -r '.apps[0].app_id + " " + (.apps[0].duration_ms|tostring)')
[ "$dur" = "app-20200706201101-0003 363996" ] && ok "--sort duration --json" || bad "--sort duration: $dur"
by=$("$C" fleet query "$S" --by user --csv | grep -E '^"(alice|bob)"' | cut -d, -f1,2,7)
[ "$by" = '"bob",2,0.231111
"alice",2,0.014444' ] && ok "--by user: bob 2 runs 0.231111 core-h, alice 2 runs 0.014444" || bad "--by user: $by"
rec=$("$C" fleet query "$S" --recurring --json | jq -c '[.recurring[] | select(.name=="nightly") | .runs, .regressed, .regressions[0].app_id, .regressions[0].baseline_duration_ms]')
[ "$rec" = '[4,1,"app-20240101000000-0004",5000]' ] && ok "--recurring: nightly 4 runs, the slow one regressed against a 5000 ms baseline" || bad "--recurring: $rec"
"$C" fleet query "$S" --recurring >"$T/rec.txt"
grep -q "app-20240101000000-0004" "$T/rec.txt" && tr '\n' ' ' <"$T/rec.txt" | grep -q "summary rows, not a stage-level" \
  && ok "--recurring text names the regressed run and its method" || bad "--recurring text: $(head -5 "$T/rec.txt")"
n=$("$C" fleet query "$S" --since 2020-01-01 --limit 0 --csv | tail -n +2 | wc -l)
[ "$n" = 5 ] && ok "--since 2020-01-01 keeps the 5 attempts started since" || bad "--since: $n rows"
"$C" fleet query "$S" --since 3650d >/dev/null && ok "--since 3650d accepted" || bad "--since 3650d"
"$C" fleet query "$S" --since yesterday >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "since takes an age" "$T/err" && ok "--since yesterday: usage error" || bad "--since bad: rc $rc"
w=$("$C" fleet query "$S" --limit 0 | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$w" -le 100 ] && ok "text output fits 100 columns ($w)" || bad "text output is $w columns wide"

# the History Server's attempt JSON, byte for byte as `clarity api` lists it
want=$("$C" api "$L/team-a/app-20240101000000-0001" /applications --compact | jq -c '.[0].attempts[0]')
got=$(sqlite3 "$S" "SELECT app_info_json FROM apps WHERE app_id='app-20240101000000-0001'")
[ "$got" = "$want" ] && ok "app_info_json = clarity api's attempt" || bad "app_info_json: $got vs $want"
nf=$(sqlite3 "$S" "SELECT count(*) FROM findings f JOIN apps a ON a.id = f.app_row_id WHERE a.app_id = 'app-20200706201101-0003'")
want_nf=$("$C" findings --json "$L/team-b/app-20200706201101-0003" | jq '.applications[0].findings | length')
[ "$nf" = "$want_nf" ] && ok "findings rows = clarity findings' ($nf)" || bad "findings rows $nf, clarity findings $want_nf"

# ---- grown: an .inprogress log read again when appended to
head -n 20 "$(dirname "$0")/../data/mini-3x.json" | sed 's/app-20240101000000-0001/app-20240101000000-0009/g' >"$L/team-a/app-20240101000000-0009.inprogress"
"$C" fleet index "$L" --store "$S" --json >"$T/r3.json"
[ "$(stat_of "$T/r3.json" new)/$(stat_of "$T/r3.json" read)" = "1/1" ] && ok "a new .inprogress log is read" || bad "new inprogress: $(jq -c .stats "$T/r3.json")"
[ "$(sqlite3 "$S" "SELECT completed, integrity & 1 FROM apps WHERE app_id='app-20240101000000-0009'")" = "0|1" ] \
  && ok "it is stored running, flagged in-progress" || bad "inprogress row"
tail -n +21 "$MINI" | sed 's/app-20240101000000-0001/app-20240101000000-0009/g' >>"$L/team-a/app-20240101000000-0009.inprogress"
"$C" fleet index "$L" --store "$S" --json >"$T/r4.json"
[ "$(stat_of "$T/r4.json" grown)/$(stat_of "$T/r4.json" read)/$(stat_of "$T/r4.json" unchanged)" = "1/1/6" ] \
  && ok "the appended log is grown and read again, the 6 others unchanged" || bad "grown: $(jq -c .stats "$T/r4.json")"
bn=$(stat_of "$T/r4.json" bytes_new); tail_bytes=$(tail -n +21 "$MINI" | wc -c)
[ "$bn" = "$tail_bytes" ] && ok "bytes_new = the appended $tail_bytes bytes" || bad "bytes_new $bn, appended $tail_bytes"
[ "$(sqlite3 "$S" "SELECT completed, duration_ms FROM apps WHERE app_id='app-20240101000000-0009'")" = "1|5000" ] \
  && ok "the grown log's row now ended, 5000 ms" || bad "grown row"

# ---- changed: a completed log rewritten in place under the same name. A plain run trusts a
# completed log's name (Spark writes it once): it is missed, and looked at by no stat at all;
# --verify stats every entry and reads it.
variant 0002 nightly alice 9000 >"$L/team-a/app-20240101000000-0002"
"$C" fleet index "$L" --store "$S" --json >"$T/r5.json"
[ "$(stat_of "$T/r5.json" changed)/$(stat_of "$T/r5.json" read)/$(stat_of "$T/r5.json" unchanged)" = "0/0/7" ] \
  && ok "a completed log rewritten in place is not looked at without --verify" || bad "plain run after rewrite: $(jq -c .stats "$T/r5.json")"
[ "$(sqlite3 "$S" "SELECT duration_ms FROM apps WHERE app_id='app-20240101000000-0002'")" = "5000" ] && ok "its row keeps the old duration until --verify" || bad "row changed without --verify"
"$C" fleet index "$L" --store "$S" --verify --json >"$T/r5v.json"
[ "$(stat_of "$T/r5v.json" changed)/$(stat_of "$T/r5v.json" read)/$(stat_of "$T/r5v.json" unchanged)" = "1/1/6" ] \
  && ok "--verify: the rewritten log is changed and read, 6 unchanged" || bad "--verify: $(jq -c .stats "$T/r5v.json")"
[ "$(sqlite3 "$S" "SELECT duration_ms FROM apps WHERE app_id='app-20240101000000-0002'")" = "9000" ] && ok "its row has the new duration" || bad "changed row"
# a grown .inprogress is noticed by every run, without --verify (the grown case above ran plain)
printf '{"Event":"SparkListenerLogStart","Spark Version":"3.4.1"}\n' >"$L/team-b/app-20240101000000-0010.inprogress"
"$C" fleet index "$L" --store "$S" --json >/dev/null
printf '{"Event":"SparkListenerApplicationStart","App Name":"late","App ID":"app-20240101000000-0010","Timestamp":1704067200000,"User":"carol"}\n' >>"$L/team-b/app-20240101000000-0010.inprogress"
"$C" fleet index "$L" --store "$S" --json >"$T/r5g.json"
[ "$(stat_of "$T/r5g.json" read)/$(stat_of "$T/r5g.json" unchanged)" = "1/7" ] && [ "$(sqlite3 "$S" "SELECT name FROM apps WHERE app_id='app-20240101000000-0010'")" = late ] \
  && ok "an appended .inprogress is read again by a plain run (its row now names the app)" || bad "grown inprogress: $(jq -c .stats "$T/r5g.json")"
# renamed on completion: the .inprogress row is marked deleted, the completed name is new
mv "$L/team-b/app-20240101000000-0010.inprogress" "$L/team-b/app-20240101000000-0010"
"$C" fleet index "$L" --store "$S" --json >"$T/r5r.json"
[ "$(stat_of "$T/r5r.json" new)/$(stat_of "$T/r5r.json" deleted)/$(stat_of "$T/r5r.json" read)" = "1/1/1" ] \
  && ok "renamed from .inprogress: the new name read, the old one marked deleted" || bad "rename: $(jq -c .stats "$T/r5r.json")"
rm "$L/team-b/app-20240101000000-0010"
"$C" fleet index "$L" --store "$S" -q >/dev/null
# a file that is not an event log is noted by the resolver, never stored
echo "logs of the team" >"$L/team-a/README"
"$C" fleet index "$L" --store "$S" --json >"$T/r5n.json"
[ "$(stat_of "$T/r5n.json" entries)/$(stat_of "$T/r5n.json" read)" = "7/0" ] && [ "$(sqlite3 "$S" "SELECT count(*) FROM logs WHERE path LIKE '%README'")" = 0 ] \
  && ok "a README beside the logs is not an entry" || bad "README: $(jq -c .stats "$T/r5n.json")"
rm "$L/team-a/README"

# ---- deleted
rm "$L/team-a/app-20240101000000-0003"
"$C" fleet index "$L" --store "$S" --json >"$T/r6.json"
[ "$(stat_of "$T/r6.json" deleted)/$(stat_of "$T/r6.json" read)" = "1/0" ] && ok "a removed log is marked deleted, nothing read" || bad "deleted: $(jq -c .stats "$T/r6.json")"
[ "$(sqlite3 "$S" "SELECT state FROM logs WHERE path='team-a/app-20240101000000-0003'")" = deleted ] && ok "logs.state = deleted" || bad "state"
"$C" fleet query "$S" --limit 0 --csv | grep -q 'app-20240101000000-0003' && bad "a deleted log's attempt is listed" || ok "deleted attempts leave the listing"
"$C" fleet query "$S" --limit 0 --csv --include-deleted | grep -q 'app-20240101000000-0003' && ok "--include-deleted lists it" || bad "--include-deleted"
"$C" fleet index "$L" --store "$S" --json >"$T/r7.json"
[ "$(stat_of "$T/r7.json" deleted)/$(stat_of "$T/r7.json" read)/$(stat_of "$T/r7.json" unchanged)" = "0/0/6" ] && ok "and stays marked, once" || bad "after delete: $(jq -c .stats "$T/r7.json")"
# a whole subdirectory removed: every row below it marked deleted, in one statement
mkdir -p "$L/team-c/2024"; variant 0005 nightly dan 5000 >"$L/team-c/2024/app-20240101000000-0005"
variant 0006 nightly dan 5000 >"$L/team-c/app-20240101000000-0006"
"$C" fleet index "$L" --store "$S" -q >/dev/null
rm -r "$L/team-c"
"$C" fleet index "$L" --store "$S" --json >"$T/r7d.json"
[ "$(stat_of "$T/r7d.json" deleted)/$(stat_of "$T/r7d.json" unchanged)" = "2/6" ] \
  && [ "$(sqlite3 "$S" "SELECT count(*) FROM logs WHERE path LIKE 'team-c/%' AND state = 'deleted'")" = 2 ] \
  && ok "a removed subdirectory: its 2 logs (one nested) marked deleted" || bad "removed dir: $(jq -c .stats "$T/r7d.json")"

# a log replaced by a dangling link: not an entry any more (the resolver notes it), marked deleted
variant 0007 nightly erin 5000 >"$L/team-b/app-20240101000000-0007"
"$C" fleet index "$L" --store "$S" -q >/dev/null
rm "$L/team-b/app-20240101000000-0007"; ln -s "$T/nowhere" "$L/team-b/app-20240101000000-0007"
"$C" fleet index "$L" --store "$S" --json >"$T/r7l.json"
[ "$(stat_of "$T/r7l.json" deleted)/$(sqlite3 "$S" "SELECT state FROM logs WHERE path='team-b/app-20240101000000-0007'")" = "1/deleted" ] \
  && ok "a log replaced by a dangling link is marked deleted" || bad "dangling link: $(jq -c .stats "$T/r7l.json")"
rm "$L/team-b/app-20240101000000-0007"

# ---- application directories (a rolling one growing a part, a Spark 1.x one): always looked
# at, since their parts grow under the same directory name; found once each, never as files
RD="$SHARED_DATA/external/nvidia-qualification/eventlog_v2_local-1623876083964"
LD="$SHARED_DATA/spark-events/legacy-dir-format/local-1422981759269"
if [ -d "$RD" ] && [ -d "$LD" ]; then
  R="$T/apps"; mkdir -p "$R/rolling"; RS="$T/apps.db"
  cp -r "$RD" "$R/rolling/"; cp -r "$LD" "$R/"
  rdir="$R/rolling/${RD##*/}"
  mv "$rdir/appstatus_local-1623876083964" "$rdir/appstatus_local-1623876083964.inprogress"
  mv "$rdir/events_2_local-1623876083964.zstd" "$T/part2"
  "$C" fleet index "$R" --store "$RS" --json >"$T/a1.json"
  [ "$(stat_of "$T/a1.json" entries)/$(stat_of "$T/a1.json" new)/$(stat_of "$T/a1.json" unreadable)" = "2/2/0" ] \
    && [ "$(sqlite3 "$RS" "SELECT group_concat(path, ' ') FROM (SELECT path FROM logs ORDER BY path)")" = "local-1422981759269 rolling/${RD##*/}" ] \
    && ok "a rolling and a Spark 1.x directory: one entry each, no marker file taken as a log" || bad "app dirs: $(jq -c .stats "$T/a1.json") $(sqlite3 "$RS" 'SELECT path FROM logs')"
  "$C" fleet index "$R" --store "$RS" --json >"$T/a2.json"
  [ "$(stat_of "$T/a2.json" unchanged)/$(stat_of "$T/a2.json" read)" = "2/0" ] && ok "both unchanged on a second run" || bad "app dirs again: $(jq -c .stats "$T/a2.json")"
  mv "$T/part2" "$rdir/events_2_local-1623876083964.zstd"
  "$C" fleet index "$R" --store "$RS" --json >"$T/a3.json"
  [ "$(stat_of "$T/a3.json" grown)/$(stat_of "$T/a3.json" read)/$(stat_of "$T/a3.json" unchanged)" = "1/1/1" ] \
    && ok "a rolling directory with a new part: grown and read by a plain run" || bad "rolling part: $(jq -c .stats "$T/a3.json")"
else
  skip "fleet application directories: $RD or $LD absent (SHARED_DATA=$SHARED_DATA)"
fi

# ---- a store of another version, another directory
cp "$S" "$T/v2.db"; sqlite3 "$T/v2.db" 'PRAGMA user_version = 2'
"$C" fleet query "$T/v2.db" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 3 ] && grep -q "this clarity reads clarity.store/1" "$T/err" && ok "a version-2 store is refused (exit 3)" || bad "v2: rc $rc $(cat "$T/err")"
mkdir -p "$T/other"; cp "$MINI" "$T/other/"
"$C" fleet index "$T/other" --store "$S" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "this store indexes" "$T/err" && ok "another directory into the same store: usage error" || bad "other root: rc $rc"

# ---- shards by hand: plan, two --only shards, merge = one local run
P="$T/plan.db"; "$C" fleet index "$L" --store "$P" --plan "$T/plan.txt" -q >/dev/null
[ "$(wc -l <"$T/plan.txt")" = 6 ] && ok "--plan lists the 6 entries to read" || bad "plan: $(wc -l <"$T/plan.txt")"
[ "$(sqlite3 "$P" 'SELECT count(*) FROM apps')" = 0 ] && ok "--plan reads nothing" || bad "plan read something"
sed -n 1,3p "$T/plan.txt" >"$T/s1.txt"; sed -n '4,$p' "$T/plan.txt" >"$T/s2.txt"
"$C" fleet index "$L" --store "$T/s1.db" --only "$T/s1.txt" -q >/dev/null && "$C" fleet index "$L" --store "$T/s2.db" --only "$T/s2.txt" -q >/dev/null \
  && "$C" fleet merge "$P" "$T/s1.db" "$T/s2.db" -q && ok "two shards indexed and merged" || bad "shards"
"$C" fleet query "$S" --limit 0 --csv >"$T/a.csv"; "$C" fleet query "$P" --limit 0 --csv >"$T/b.csv"
cmp -s "$T/a.csv" "$T/b.csv" && ok "merged shards = the local store, row for row" || bad "merged differs: $(diff "$T/a.csv" "$T/b.csv" | head -4)"
"$C" fleet index "$L" --store "$P" --json >"$T/r8.json"
[ "$(stat_of "$T/r8.json" unchanged)/$(stat_of "$T/r8.json" read)" = "6/0" ] && ok "after a merge, the next local run reads nothing" || bad "after merge: $(jq -c .stats "$T/r8.json")"

# ---- under ASan+UBSan
if [ -x "$CLARITY_ASAN" ]; then
  A="$T/asan.db"
  if "$CLARITY_ASAN" fleet index "$L" --store "$A" -q >/dev/null 2>"$T/asan.err" && "$CLARITY_ASAN" fleet index "$L" --store "$A" -q >/dev/null 2>>"$T/asan.err" \
     && "$CLARITY_ASAN" fleet query "$A" --recurring >/dev/null 2>>"$T/asan.err" && "$CLARITY_ASAN" fleet query "$A" --by queue --json >/dev/null 2>>"$T/asan.err"
  then ok "index twice and query under ASan+UBSan"; else bad "ASan: $(head -5 "$T/asan.err")"; fi
else
  skip "fleet under ASan: no $CLARITY_ASAN (make build-asan/clarity)"
fi

# ---- Dask: a LocalCluster of 2 worker processes gives the same store
if ! /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
  skip "fleet --dask: 'import distributed' fails under /usr/bin/python3 (Debian package python3-distributed)"
else
  D="$T/dask.db"
  timeout 180 "$C" fleet index "$L" --store "$D" --dask local --dask-workers 2 --json >"$T/dask.json" 2>"$T/dask.err"; rc=$?
  if [ $rc = 0 ] && [ "$(jq -r '.workers, .read, .failed_shards' "$T/dask.json" | tr '\n' ' ')" = "2 6 0 " ]; then
    ok "--dask local: 2 workers read the 6 entries"
  else bad "--dask local: rc $rc $(head -c 300 "$T/dask.json") $(tail -3 "$T/dask.err")"; fi
  "$C" fleet query "$D" --limit 0 --csv >"$T/d.csv"
  cmp -s "$T/a.csv" "$T/d.csv" && ok "the Dask store = the local store, row for row" || bad "Dask store differs: $(diff "$T/a.csv" "$T/d.csv" | head -4)"
  "$C" fleet index "$L" --store "$D" --json >"$T/r9.json"
  [ "$(stat_of "$T/r9.json" read)" = 0 ] && ok "after the Dask run, a local run reads nothing" || bad "after dask: $(jq -c .stats "$T/r9.json")"
fi
summary
