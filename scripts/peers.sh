# shellcheck shell=bash
# peers.sh - where tests/helpers/lib.sh and bench/*.sh find the real programs they
# compare against (sourced, not run). Postfix's come from
# scripts/fetch-peer.sh postfix: wrappers in $SPOOLSIM_PEERS/postfix/bin that
# run the extracted Debian package with its own libraries and its private
# config directory; no Postfix is installed. Set any of these beforehand to
# use another copy (e.g. POSTFIX_SMTP_SOURCE=/usr/local/sbin/smtp-source).
# swaks and PostMark are Debian packages (scripts/install-deps.sh --test).
# OpenSSH's sshd, ssh and ssh-keygen and GNU parallel, for the SSH path of
# bench/multi-host (tests/it/it_multi_host_ssh.sh), are fetched the same way
# (scripts/fetch-peer.sh openssh-server openssh-client parallel).
# Makefile.am sources it too, from /bin/sh, with SPOOLSIM_PEERS already set.
SPOOLSIM_PEERS=${SPOOLSIM_PEERS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/peers}
PEER_POSTFIX=${PEER_POSTFIX:-$SPOOLSIM_PEERS/postfix}
POSTFIX_SMTP_SOURCE=${POSTFIX_SMTP_SOURCE:-$PEER_POSTFIX/bin/smtp-source}
POSTFIX_SMTP_SINK=${POSTFIX_SMTP_SINK:-$PEER_POSTFIX/bin/smtp-sink}
POSTCAT=${POSTCAT:-$PEER_POSTFIX/bin/postcat}
SWAKS=${SWAKS:-$(command -v swaks || true)}
POSTMARK=${POSTMARK:-$(command -v postmark || true)}
OPENSSH_SSHD=${OPENSSH_SSHD:-$SPOOLSIM_PEERS/openssh-server/bin/sshd}
OPENSSH_SSH=${OPENSSH_SSH:-$SPOOLSIM_PEERS/openssh-client/bin/ssh}
OPENSSH_KEYGEN=${OPENSSH_KEYGEN:-$SPOOLSIM_PEERS/openssh-client/bin/ssh-keygen}
GNU_PARALLEL=${GNU_PARALLEL:-$SPOOLSIM_PEERS/parallel/bin/parallel}
# zsh and fish, for the completion's test (tests/it/it_completion.sh):
# scripts/fetch-peer.sh zsh zsh-common fish (zsh-common: its completion
# functions), or the machine's own.
PEER_ZSH=${PEER_ZSH:-$SPOOLSIM_PEERS/zsh/bin/zsh}
PEER_FISH=${PEER_FISH:-$SPOOLSIM_PEERS/fish/bin/fish}
