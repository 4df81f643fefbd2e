#!/bin/sh
# Installs the Debian packages avrr needs to build, test and benchmark.
# Idempotent and silent when nothing is missing.
set -eu
PKGS="make gcc g++ pkg-config simavr libsimavr-dev gcc-avr avr-libc binutils-avr
      libelf-dev libdw-dev libsqlite3-dev libreadline-dev libsodium-dev libxxhash-dev
      libjansson-dev libcmocka-dev sqlite3 tmux python3-matplotlib gdb-avr clang
      libclang-rt-dev gtkwave arduino-core-avr arduino-mk python3-jsonschema man-db
      groff-base munge slurmctld slurmd slurm-client parallel valgrind"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
