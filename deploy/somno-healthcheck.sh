#!/bin/sh
# Somno's health check (deploy/README.md). Reads PORT from the environment (the service's EnvironmentFile).
#
#   somno-healthcheck.sh wait SECONDS   polls /healthz until it answers 200; exit 1 after SECONDS without it
#                                       (somno.service's ExecStartPost: the start then fails and is retried)
#   somno-healthcheck.sh check          one request: no answer at all (refused, or none within the timeout)
#                                       restarts the service; 503 (the database is not answering) only logs a
#                                       warning, since the server recovers by itself once the database is back
#
# A service stopped on purpose is left alone: `check` does nothing unless the service is active.
# SOMNO_HEALTH_URL (default http://127.0.0.1:$PORT/healthz), SOMNO_HEALTH_TIMEOUT (seconds, default 10),
# SOMNO_IS_ACTIVE (default: systemctl is-active --quiet somno.service) and SOMNO_RESTART (default: systemctl
# restart somno.service) change what is checked and done.
set -u

url="${SOMNO_HEALTH_URL:-http://127.0.0.1:${PORT:-8000}/healthz}"
timeout="${SOMNO_HEALTH_TIMEOUT:-10}"
restart="${SOMNO_RESTART:-systemctl restart somno.service}"
is_active="${SOMNO_IS_ACTIVE:-systemctl is-active --quiet somno.service}"

status() {
  # The HTTP status, or 000 when nothing answered.
  curl --silent --output /dev/null --write-out '%{http_code}' --max-time "$1" "$url" 2>/dev/null || true
}

case "${1:-}" in
  wait)
    limit="${2:-120}"
    start=$(date +%s)
    while :; do
      code=$(status 2)
      [ "$code" = 200 ] && exit 0
      if [ $(( $(date +%s) - start )) -ge "$limit" ]; then
        echo "somno-healthcheck: $url did not answer 200 within ${limit} s (last: $code)" >&2
        exit 1
      fi
      sleep 1
    done
    ;;
  check)
    $is_active || exit 0
    code=$(status "$timeout")
    case "$code" in
      200) exit 0 ;;
      000)
        echo "somno-healthcheck: $url did not answer within ${timeout} s; restarting: $restart" >&2
        $restart
        exit 1
        ;;
      *)
        echo "somno-healthcheck: $url answered $code (the database may be down); not restarting" >&2
        exit 0
        ;;
    esac
    ;;
  *)
    echo "usage: $0 wait SECONDS | check" >&2
    exit 2
    ;;
esac
