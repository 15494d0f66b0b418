#!/bin/sh
# Runs every fuzz target built in BUILD_DIR (bin/fuzz/fuzz_*) for SECONDS
# each, one after another: first its regressions (fuzz/regressions/<target>),
# then libFuzzer on a scratch copy of its corpus (fuzz/corpus/<target>) plus
# the regressions. Prints one line per target and exits non-zero if anything
# crashed, leaked, timed out or ran out of memory. See docs/fuzzing.md.
#
# usage: fuzz/run.sh SECONDS [BUILD_DIR]     (BUILD_DIR defaults to build-fuzz)
# env:   FUZZ_TARGETS="type views"  only these targets
#        FUZZ_KEEP=DIR              keep corpora (growing across runs), logs and findings under DIR
#        FUZZ_TIMEOUT=S             seconds one input may take before it counts as a hang (default 5;
#                                   raise it on a loaded machine, where 5 s flags slow, not hung, inputs)
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 SECONDS [BUILD_DIR]" >&2
  exit 2
fi
secs=$1
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../build-fuzz}
bindir=$build/bin/fuzz
if [ ! -d "$bindir" ]; then
  echo "$0: no fuzzers in $bindir (configure with -DLAYOUTC_FUZZ=ON and build 'fuzzers')" >&2
  exit 2
fi
work=${FUZZ_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/layoutc-fuzz.XXXXXX")}
mkdir -p "$work"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
for bin in "$bindir"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  short=${name#fuzz_}
  if [ -n "${FUZZ_TARGETS:-}" ] && ! echo " $FUZZ_TARGETS " | grep -q " $short "; then
    continue
  fi
  corpus=$work/$short/corpus
  found=$work/$short/findings
  log=$work/$short/log
  rm -rf "$found"
  [ -z "${FUZZ_KEEP:-}" ] && rm -rf "$corpus" # a kept corpus grows from run to run
  mkdir -p "$corpus" "$found"
  for d in "$here/corpus/$short" "$here/regressions/$short"; do
    [ -d "$d" ] && find "$d" -maxdepth 1 -type f -exec cp {} "$corpus/" \;
  done
  dict=
  for f in "$here/$short.dict" "$here/type.dict"; do
    if [ -f "$f" ] && [ "$short" != views ]; then
      dict=-dict=$f
      break
    fi
  done

  # Each repack input compiles LLVM code (tens of ms, seconds on a loaded
  # machine): a timeout there is a hang only well past the parsers' 5 s.
  tmo=${FUZZ_TIMEOUT:-5}
  [ "$short" = repack ] && [ "$tmo" -lt 60 ] && tmo=60

  # Regressions first: each saved finding must pass.
  findings=0
  if [ -d "$here/regressions/$short" ] && [ -n "$(ls -A "$here/regressions/$short")" ]; then
    if ! "$bin" -timeout=$tmo -rss_limit_mb=2048 "$here/regressions/$short"/* >"$log.regress" 2>&1; then
      findings=$((findings + 1))
      echo "$name: a regression input fails; see $log.regress" >&2
    fi
  fi

  "$bin" $dict -max_total_time="$secs" -timeout=$tmo -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$found/" "$corpus" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | awk '{print $2 + 0}')
  [ "$execs" = 0 ] && execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  arts=$(find "$found" -type f ! -name 'slow-unit-*' | wc -l)
  findings=$((findings + arts))
  [ $rc -ne 0 ] && [ "$arts" -eq 0 ] && findings=$((findings + 1)) # died without an artifact
  ncorpus=$(find "$corpus" -type f | wc -l)
  echo "$name: ${execs:-0} execs, corpus $ncorpus, findings $findings"
  if [ $findings -ne 0 ]; then
    status=1
    find "$found" -type f ! -name 'slow-unit-*' | sed 's/^/  artifact: /'
    # The input itself (its first 2 KB, control bytes shown as ^X), for a
    # report that outlives the scratch directory.
    find "$found" -type f ! -name 'slow-unit-*' | head -3 | while read -r a; do
      echo "  input $(basename "$a") ($(wc -c <"$a") bytes):"
      head -c 2048 "$a" | cat -v | sed 's/^/  | /'
      echo
    done
    grep -m1 -E 'ERROR: |fuzz check failed|runtime error|internal error' "$log" | sed 's/^/  /'
    echo "  log: $log"
  fi
done
[ -z "${FUZZ_KEEP:-}" ] && [ $status -eq 0 ] && rm -rf "$work"
exit $status
