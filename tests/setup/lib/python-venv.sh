# shellcheck shell=bash
# Python virtualenvs of the peers (sourced by the peer scripts in tests/setup/; this directory
# holds no peer of its own, so tests/run.sh does not take it for one).
#
# python_venv_tools: python3 with venv and ensurepip (Debian's python3-venv), installed if missing.
# python_venv LABEL VENV REQUIREMENTS PACKAGE MODULE [SIZE]: VENV with the pins of REQUIREMENTS,
#   skipped when its stamp (the requirements file's hash) matches; PACKAGE names the pin the
#   message shows, MODULE must import afterwards, SIZE says how much it downloads.

python_venv_tools() {
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
  fi
}

python_venv() {
  local label="$1" venv="$2" req="$3" package="$4" module="$5" size="${6:-}" want
  want=$(sha256sum "$req" | cut -c1-16)
  if [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ] && [ -x "$venv/bin/python" ]; then
    return 0
  fi
  python_venv_tools
  echo "$label: installing $(grep -i "^$package==" "$req") into $venv (PyPI${size:+, about $size})" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  "$venv/bin/python" -c "import $module" || return 1
  echo "$want" > "$venv/.stamp"
}
