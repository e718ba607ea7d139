#!/bin/sh
# docs/sweeps.md shows the Slurm template verbatim: the one fenced block holding '#SBATCH' must
# be the bytes of docs/templates/sweep.sbatch, which tests/slurm/run_test.sh submits.
set -eu
root=$(dirname "$0")/../..
shown=$(mktemp)
trap 'rm -f "$shown"' EXIT
awk '
  /^```/ { if (inside) { if (block ~ /#SBATCH/) { printf "%s", block; n++ } inside = 0 }
           else { inside = 1; block = "" }
           next }
  inside { block = block $0 "\n" }
  END { if (n != 1) { print "expected one fenced block with #SBATCH, found " n > "/dev/stderr"; exit 1 } }
' "$root/docs/sweeps.md" > "$shown"
if ! diff -u "$root/docs/templates/sweep.sbatch" "$shown"; then
  echo "docs/sweeps.md's Slurm template differs from docs/templates/sweep.sbatch (diff above)" >&2
  exit 1
fi
echo "docs/sweeps.md shows docs/templates/sweep.sbatch verbatim"
