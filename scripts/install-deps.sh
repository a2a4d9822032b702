#!/bin/sh
# Installs the Debian packages kevo builds against, when they are missing.
# Called by `make` once (build/.deps-ok); safe to run again.
set -e
missing=""
have() { [ -e "$1" ]; }
have /usr/include/cjson/cJSON.h || missing="$missing libcjson-dev"
have /usr/include/pcre2.h       || missing="$missing libpcre2-dev"
have /usr/include/x86_64-linux-gnu/curl/curl.h || have /usr/include/curl/curl.h \
                                || missing="$missing libcurl4-openssl-dev"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
# headless browser for the report test (tests/cli/report.sh loads report.html)
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
[ -n "$missing" ] || exit 0
echo "kevo: installing missing Debian packages:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
