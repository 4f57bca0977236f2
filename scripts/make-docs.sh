#!/usr/bin/env bash
# Writes router.1 (the man page) and router.bash (bash completion; zsh reads it through
# bashcompinit) from the router binary's own --help texts, so that both list exactly the
# commands and options that binary has, and routerc.1 from routerc's. The build runs it
# (apps/CMakeLists.txt).
#   scripts/make-docs.sh ROUTER OUTDIR ROUTERC
set -euo pipefail
router=$1
out=$2
routerc=$3
subs=$("$router" --help | awk '/^Subcommands:/ { f = 1; next } f && NF { print $1 }')

# Every long and short option a help text lists ("  -m,--model TEXT ..." -> "-m --model").
options() {
  "$router" "$@" --help | grep -E '^  -' | sed -E 's/^  //; s/[ =].*$//' | tr ',' '\n'
}

# Help text as man-page text: troff's escape character doubled, lines that start with a dot or
# a quote made literal, and the build path in "Usage:" shown as plain "router".
as_man() {
  sed -E 's/\\/\\e/g; s/^([.'"'"'])/\\\&\1/; s|^Usage: [^ ]*router|Usage: router|'
}

{
  echo '.TH ROUTER 1 "" "router 0.1.0" "User Commands"'
  echo '.SH NAME'
  echo 'router \- an order-aware email-intent router'
  echo '.SH SYNOPSIS'
  echo '.B router'
  echo '[\fIOPTIONS\fR] \fISUBCOMMAND\fR [\fIARGS\fR]'
  echo '.SH DESCRIPTION'
  echo '.nf'
  "$router" --help | as_man
  echo '.fi'
  for s in $subs; do
    echo ".SH \"ROUTER $(echo "$s" | tr '[:lower:]' '[:upper:]')\""
    echo '.nf'
    "$router" "$s" --help | as_man
    echo '.fi'
  done
  echo '.SH "EXIT STATUS"'
  echo '0 success, 1 internal error, 2 usage, 3 bad input, 4 bad model file, 5 I/O error,'
  echo '6 batch records that could not be labelled, 130 interrupted.'
  echo '.SH "SEE ALSO"'
  echo 'The README and docs/ of the router sources: docs/mail-flow.md (procmail, maildrop, Sieve),'
  echo 'docs/explain.md, docs/reliability.md.'
} > "$out/router.1"

{
  echo '# bash completion for router, made from its --help by scripts/make-docs.sh. zsh: run'
  echo '# "autoload -U bashcompinit && bashcompinit" and source this file.'
  echo '_router() {'
  echo '  local cur=${COMP_WORDS[COMP_CWORD]} sub="" opts w'
  echo '  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do'
  echo '    case "$w" in -*) ;; *) sub=$w; break ;; esac'
  echo '  done'
  echo '  case "$sub" in'
  echo "    \"\") opts=\"$(echo $subs) help $(options | tr '\n' ' ')\" ;;"
  for s in $subs; do
    echo "    $s) opts=\"$(options "$s" | tr '\n' ' ')\" ;;"
  done
  echo '    *) opts="" ;;'
  echo '  esac'
  echo '  if [[ -z $sub || $cur == -* ]]; then'
  echo '    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")'
  echo '  else'
  echo '    mapfile -t COMPREPLY < <(compgen -f -- "$cur")'
  echo '  fi'
  echo '}'
  echo 'complete -o filenames -F _router router'
} > "$out/router.bash"

{
  echo '.TH ROUTERC 1 "" "router 0.1.0" "User Commands"'
  echo '.SH NAME'
  echo 'routerc \- router filter by way of a running router serve'
  echo '.SH SYNOPSIS'
  echo '.B routerc'
  echo '[\fIOPTIONS\fR] < \fIMESSAGE\fR'
  echo '.SH DESCRIPTION'
  echo '.nf'
  "$routerc" --help | as_man
  echo '.fi'
  echo '.SH "EXIT STATUS"'
  echo '0 for every message (labelled, or passed through with X-Router-Error), 2 usage,'
  echo '5 standard input or output failed.'
  echo '.SH "SEE ALSO"'
  echo '\fBrouter\fR(1) (router filter, router serve); docs/mail-flow.md of the router sources.'
} > "$out/routerc.1"
