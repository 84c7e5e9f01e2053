# shellcheck shell=bash
# peers.sh - where tests/helpers/lib.sh and bench/*.sh find the real programs they
# compare against (sourced, not run). Postfix's come from
# scripts/fetch-peer.sh postfix: wrappers in $SPOOLSIM_PEERS/postfix/bin that
# run the extracted Debian package with its own libraries and its private
# config directory; no Postfix is installed. Set any of these beforehand to
# use another copy (e.g. POSTFIX_SMTP_SOURCE=/usr/local/sbin/smtp-source).
# swaks and PostMark are Debian packages (scripts/install-deps.sh --test).
# Makefile.am sources it too, from /bin/sh, with SPOOLSIM_PEERS already set.
SPOOLSIM_PEERS=${SPOOLSIM_PEERS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/peers}
PEER_POSTFIX=${PEER_POSTFIX:-$SPOOLSIM_PEERS/postfix}
POSTFIX_SMTP_SOURCE=${POSTFIX_SMTP_SOURCE:-$PEER_POSTFIX/bin/smtp-source}
POSTFIX_SMTP_SINK=${POSTFIX_SMTP_SINK:-$PEER_POSTFIX/bin/smtp-sink}
POSTCAT=${POSTCAT:-$PEER_POSTFIX/bin/postcat}
SWAKS=${SWAKS:-$(command -v swaks || true)}
POSTMARK=${POSTMARK:-$(command -v postmark || true)}
