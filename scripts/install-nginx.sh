#!/usr/bin/env bash
# Installs nginx from Debian for the replicas test (tests/tests/gateway_nginx.rs), which runs it
# in the foreground with a configuration of its own. The package's service is not started: a
# policy-rc.d that refuses is put in place for the install when the machine has none (and removed
# after), so no nginx is left listening on port 80.
set -euo pipefail
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "setup: missing nginx; install with: sudo apt-get install nginx" >&2
    exit 1
fi
echo "setup: installing nginx" >&2
policy=/usr/sbin/policy-rc.d
made=
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    made=1
fi
trap '[ -n "$made" ] && rm -f "$policy"' EXIT
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null
