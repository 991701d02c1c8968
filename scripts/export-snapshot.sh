#!/usr/bin/env bash
# Export one folder of a bare git snapshot into a work folder, file by file.
# Files absent from the snapshot (large blobs are left out of fetched mirrors) are skipped and listed.
#   scripts/export-snapshot.sh GIT_DIR PREFIX DEST
# e.g. scripts/export-snapshot.sh /work/.mirror/Scientific-Computing-Lab+gpuFLOPBench/repo src external/gpuFLOPBench
set -euo pipefail
git_dir=${1:?git dir}; prefix=${2:?prefix inside the repo}; dest=${3:?destination}
mkdir -p "$dest"
skipped=0; written=0
while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta")
  out="$dest/$path"
  mkdir -p "$(dirname "$out")"
  if git --git-dir="$git_dir" cat-file blob "$sha" >"$out" 2>/dev/null; then
    written=$((written + 1))
  else
    rm -f "$out"; skipped=$((skipped + 1)); echo "missing in snapshot: $path" >&2
  fi
done < <(git --git-dir="$git_dir" ls-tree -r HEAD -- "$prefix")
echo "exported $written files into $dest ($skipped missing)"
