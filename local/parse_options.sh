# Kaldi-style option parsing, sourced after the defaults are set:
#   --stage 3 sets $stage, --corpus-dir X sets $corpus_dir (dashes become underscores).
# An option with no variable of that name already defined is an error; --help prints
# $help_message and exits 0; --config FILE sources a file of variable assignments.
# Options end at the first word that is not one, or at "--". A script that takes
# arguments (a step) sets positional=true first: the arguments stay in "$@" for it to
# check; otherwise any argument left is an error.
# shellcheck shell=bash
while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h)
      printf '%s\n' "${help_message:-no help available}"; exit 0 ;;
    --config)
      [ $# -ge 2 ] || { echo "$0: option --config needs a value" >&2; exit 1; }
      [ -f "$2" ] || { echo "$0: config file $2 not found" >&2; exit 1; }
      # shellcheck disable=SC1090
      . "$2"; shift 2 ;;
    --)
      shift; break ;;
    --*=*)
      echo "$0: write options as '--name value', not '$1'" >&2; exit 1 ;;
    --*)
      _name=$(echo "${1#--}" | tr '-' '_')
      if ! declare -p "$_name" >/dev/null 2>&1; then
        echo "$0: unknown option $1 (see $0 --help)" >&2; exit 1
      fi
      [ $# -ge 2 ] || { echo "$0: option $1 needs a value" >&2; exit 1; }
      _old=${!_name}
      if [ "$_old" = true ] || [ "$_old" = false ]; then
        case "$2" in true|false) ;; *) echo "$0: option $1 takes true or false, got '$2'" >&2; exit 1 ;; esac
      fi
      printf -v "$_name" '%s' "$2"
      shift 2 ;;
    *) break ;;
  esac
done
if [ $# -gt 0 ] && [ "${positional:-false}" != true ]; then
  echo "$0: unexpected argument '$1' (see $0 --help)" >&2; exit 1
fi
unset _name _old
true
