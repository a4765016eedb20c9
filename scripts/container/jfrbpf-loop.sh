#!/bin/sh
# Records every JVM this container can see (all of the node's with hostPID, the pod's with
# shareProcessNamespace) in back-to-back rounds, each into its own directory:
#   $JFRBPF_OUT/<node or pod name>/<UTC start time>/
# and deletes rounds older than $JFRBPF_KEEP_MINUTES so the volume does not fill up.
# SIGTERM (pod shutdown) is passed to the running jfrbpf, which finalizes its files before exiting.
set -u

out=${JFRBPF_OUT:-/out}
round=${JFRBPF_ROUND:-60s}
keep_minutes=${JFRBPF_KEEP_MINUTES:-1440}
name=${NODE_NAME:-${POD_NAME:-$(hostname)}}
extra_options=${JFRBPF_OPTIONS:-}

stopping=
child=
on_signal() {
  stopping=1
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; fi
}
trap on_signal TERM INT

while [ -z "$stopping" ]; do
  dir="$out/$name/$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$dir" || { echo "jfrbpf-loop: cannot create $dir" >&2; exit 1; }
  # shellcheck disable=SC2086 # JFRBPF_OPTIONS is a list of options
  jfrbpf record --all -d "$round" -o "$dir" $extra_options &
  child=$!
  wait "$child"
  status=$?
  # wait returns early when a trapped signal arrives; keep waiting until jfrbpf has finished its files.
  while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    status=$?
  done
  child=
  rmdir "$dir" 2>/dev/null  # nothing recorded (no JVM ran during the round)
  find "$out/$name" -mindepth 1 -maxdepth 1 -type d -mmin +"$keep_minutes" -exec rm -rf {} + 2>/dev/null
  if [ -z "$stopping" ] && [ "$status" -ne 0 ]; then
    echo "jfrbpf-loop: jfrbpf record exited with status $status; next round in 10 s" >&2
    sleep 10 &
    child=$!
    wait "$child"
    child=
  fi
done
exit 0
