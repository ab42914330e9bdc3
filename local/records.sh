# Reading the records that punct.bin.experiments prints, without eval: a header line of field
# names, then one line per record; fields are separated by the byte 0x1e, the items of a list
# field (a name ending in "[]") by 0x1f. Sourced by run.sh.
# shellcheck shell=bash

# read_record HEADER LINE: set one shell variable per field of HEADER to its value in LINE (an
# array for a list field); a field missing at the end of LINE is set empty
read_record() {
  local -a _names _values
  local _i _name
  IFS=$'\x1e' read -r -a _names <<< "$1"
  IFS=$'\x1e' read -r -a _values <<< "$2"
  for _i in "${!_names[@]}"; do
    _name=${_names[_i]}
    [[ "${_name%\[\]}" =~ ^[a-z_]+$ ]] || die "read_record: '$_name' is not a field name"
    if [ "${_name%\[\]}" != "$_name" ]; then
      _name=${_name%\[\]}
      # shellcheck disable=SC2229  # the variable is named by the header
      IFS=$'\x1f' read -r -a "$_name" <<< "${_values[_i]-}"
    else
      printf -v "$_name" '%s' "${_values[_i]-}"
    fi
  done
}

# read_records COMMAND...: the output of COMMAND (a header and records) into the arrays
# record_header (one line) and record_lines (the records); fails when COMMAND fails
read_records() {
  local out
  out=$("$@") || exit 1
  record_header=""
  record_lines=()
  [ -n "$out" ] || return 0
  mapfile -t record_lines <<< "$out"
  record_header=${record_lines[0]}
  record_lines=("${record_lines[@]:1}")
}
