#!/bin/sh
# The Slurm test (`make test-slurm`, as root): starts a single-node cluster (cluster.sh), submits
# docs/templates/sweep.sbatch, the job array docs/sweeps.md shows, and checks that `ckptsim
# merge` of its ten shards gives the same files as the same sweep run unsharded.
# Usage: run_test.sh BUILD_DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
work=$build/slurm-test
start=$(date +%s)

"$here/check_template.sh"

rm -rf "$work"
mkdir -p "$work/job" "$work/unsharded-bin"
trap '"$here/cluster.sh" stop "$work/cluster"' EXIT
trap 'exit 1' INT TERM
"$here/cluster.sh" start "$work/cluster"
export SLURM_CONF="$work/cluster/slurm.conf"

# The template's scenario: the seed incident (3 timeouts x 100 seeds = 300 points, ~30 per shard).
cp "$root/scenarios/seed/doris-cdc-table-swap.yaml" "$work/job/incident.yaml"
cd "$work/job"
# The job's environment is the submitter's (sbatch's default --export=ALL): ckptsim from the build.
# The template asks for 8 CPUs per task; this node has fewer, so the command line overrides that
# one directive, as a user would on a small node. Everything else is the template's.
# At most 5 min (it takes under a minute): a node that never runs the jobs fails the test.
PATH="$build/bin:$PATH" timeout 300 sbatch --wait --quiet --cpus-per-task="$(nproc)" \
  "$root/docs/templates/sweep.sbatch" > submit.log || {
  echo "the job array failed; its output:" >&2
  tail -n +1 slurm-*.out >&2 || true
  exit 1
}
shards=$(ls -d shards/* | wc -l)
[ "$shards" = 10 ] || { echo "expected 10 shard directories, found $shards" >&2; exit 1; }

# The merge the template's last line names.
"$build/bin/ckptsim" merge shards/* --out merged > merge.log

# The reference: the template's own command run once outside Slurm, through a wrapper that drops
# --shard and writes to unsharded/ (a sweep's points carry no shard, so the files must be equal).
cat > "$work/unsharded-bin/ckptsim" <<WRAP
#!/bin/sh
skip=""
for a do
  shift
  case \$skip in
    shard) skip=""; continue ;;
    out) skip=""; set -- "\$@" unsharded; continue ;;
  esac
  case \$a in
    --shard) skip=shard; continue ;;
    --out) skip=out ;;
  esac
  set -- "\$@" "\$a"
done
exec "$build/bin/ckptsim" "\$@"
WRAP
chmod +x "$work/unsharded-bin/ckptsim"
PATH="$work/unsharded-bin:$PATH" SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 \
  SLURM_CPUS_PER_TASK="$(nproc)" bash "$root/docs/templates/sweep.sbatch" > unsharded.log

points=$(ls unsharded/points | wc -l)
[ "$points" = 300 ] || { echo "expected 300 points unsharded, found $points" >&2; exit 1; }
if ! diff -r merged unsharded; then
  echo "ckptsim merge of the Slurm shards differs from the unsharded sweep" >&2
  exit 1
fi
echo "slurm test passed: 10 array tasks, merge equals the unsharded sweep ($points points)" \
  "in $(( $(date +%s) - start )) s"
