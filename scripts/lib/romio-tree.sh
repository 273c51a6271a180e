# shellcheck shell=bash
# The steps scripts/build-romio and scripts/build-mpich-piox share to make a
# patched ROMIO: a fresh copy of the fetched tree, the ad_piox driver and the
# patches of adio/romio/patches/ put into it, autogen, and a stamp of what the
# copy was made from, so that it is made again only when one of those changes.
# Sourced by both after they cd to the repository; they define REPO, die and log.

# romio_patches [NUMBER...]: the patches, in order, one a line; with numbers
# (0001 0008), only the patches named after them.
romio_patches() {
  local file number
  for file in "$REPO"/adio/romio/patches/*.patch; do
    [ -f "$file" ] || continue   # no patch at all: the glob is left as it is
    if [ $# = 0 ]; then
      echo "$file"
    fi
    for number; do
      if [[ $(basename "$file") == "$number"-* ]]; then
        echo "$file"
      fi
    done
  done
}

# romio_tree_stamp SOURCE FILE...: a hash of the fetched tree's path, the files
# (driver, patches, the calling script) and this library: what the copy is made of.
romio_tree_stamp() {
  local source=$1
  shift
  { echo "$source"; cat "$@" "${BASH_SOURCE[0]}"; } | sha256sum | cut -d' ' -f1
}

# romio_tree_is_current DEST STAMP: DEST was made, to the end, from what STAMP hashes.
romio_tree_is_current() {
  [ "$(cat "$1/.piox-stamp" 2>/dev/null)" = "$2" ]
}

# romio_tree_copy SOURCE DEST BUILD: DEST a fresh copy of SOURCE; BUILD, configured
# from the old copy, goes too.
romio_tree_copy() {
  log "copy $1 to $2"
  rm -rf "$2" "$3"
  mkdir -p "$(dirname "$2")"
  cp -a "$1" "$2"
}

# romio_tree_patch ROMIO DRIVER PATCH...: the driver directory (none when DRIVER
# is empty) copied to ROMIO/adio/ad_piox, then the patches applied in order.
romio_tree_patch() {
  local romio=$1 driver=$2 file
  shift 2
  if [ -n "$driver" ]; then
    log "copy ${driver#"$REPO"/} to adio/ad_piox"
    cp -a "$driver" "$romio/adio/ad_piox"
  fi
  for file; do
    log "patch ${file#"$REPO"/}"
    patch -p1 -s -d "$romio" <"$file" || die "$file does not apply"
  done
}

# romio_tree_autogen ROMIO LOGFILE: the patches change configure.ac and
# Makefile.am, so ROMIO's (and its MPL's) configure and Makefile.in are made again.
romio_tree_autogen() {
  log "autogen in ${1#"$REPO"/}"
  (cd "$1" && nice ./autogen.sh >"$2" 2>&1) || die "autogen failed; see $2"
}

# romio_tree_done DEST STAMP: written last, so that a copy interrupted half way is
# made again.
romio_tree_done() {
  echo "$2" >"$1/.piox-stamp"
}
