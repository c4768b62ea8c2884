#!/usr/bin/env bash
# Regenerates docs/robustness.md: runs every bad input below through the real
# command and records what the user sees (the message and the exit status).
# Usage: scripts/robustness.sh [OUTPUT.md]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-docs/robustness.md}
case $out in /*) ;; *) out=$root/$out ;; esac
# The hand-written part from "## Fuzzing" on is kept (taken from
# docs/robustness.md when OUTPUT.md has none).
tail=""
for f in "$out" "$root/docs/robustness.md"; do
	if [ -f "$f" ] && grep -q '^## Fuzzing' "$f"; then
		tail=$(sed -n '/^## Fuzzing/,$p' "$f")
		break
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/pairgossip
go build -o "$bin" ./cmd/pairgossip
cd "$tmp"

# Bad files.
printf '1,2,3,1\n4,5,6\n' >bad-columns.csv
printf '1,2,1\n3,abc,0\n' >bad-number.csv
printf '1,2,1\nNaN,4,0\n' >nan.csv
printf '1,2,1\n3,Inf,0\n' >inf.csv
printf '1,2,1\n3,4,1\n' >one-class.csv
: >empty.csv
printf '1 0:1.5\n-1 1:2\n' >index0.svm
printf '1 2:1 1:2\n-1 1:2\n' >unordered.svm
printf '1 1:1 2\n-1 1:2\n' >token.svm
printf '0 1\n1 1\n' >selfloop.txt
printf '0 1\n2\n' >onenumber.txt
printf '0 1\n-1 2\n' >negative.txt
printf '0 1\n2 3\n' >disconnected.txt
printf '# n = 5\n0 1\n1 2\n2 3\n3 4\n4 0\n' >small.txt
# Fixed pseudo-random bytes (the same file, so the same message, on every run).
awk 'BEGIN { srand(1); for (i = 0; i < 100000; i++) printf "%c", int(rand() * 256) }' >random.bin
printf '1,2,1\n1_000,3,0\n' >go-syntax.csv
printf '1,2,1\n0x1p3,3,0\n' >hex.csv
printf 'id,label,a,b\n101,yes,1,2\n102,no,3,1\n' >header.csv
printf '# n = -5\n0 1\n1 2\n2 0\n' >negative-n.txt

# Checkpoints.
"$bin" run --iters 200 --no-optimum --out o --checkpoint good.ckpt >/dev/null 2>&1
head -c 5000 good.ckpt >truncated.ckpt
cp good.ckpt flipped.ckpt
printf '\xff' | dd of=flipped.ckpt bs=1 seek=5000 conv=notrunc 2>/dev/null
printf 'hello\n' >notckpt.ckpt

cases=(
	"CSV with a short row|run --data bad-columns.csv --out o"
	"CSV with a non-numeric value|run --data bad-number.csv --out o"
	"CSV with NaN|run --data nan.csv --out o"
	"CSV with Inf|run --data inf.csv --out o"
	"CSV with a single class|run --data one-class.csv --out o"
	"empty CSV|run --data empty.csv --out o"
	"missing data file|run --data nosuch.csv --out o"
	"binary garbage as data|run --data random.bin --out o"
	"LIBSVM index 0|run --data index0.svm --out o"
	"LIBSVM indices not increasing|run --data unordered.svm --out o"
	"LIBSVM token without a colon|run --data token.svm --out o"
	"edge list with a self-loop|run --graph file --graph-file selfloop.txt --out o"
	"edge list line with one id|run --graph file --graph-file onenumber.txt --out o"
	"edge list with a negative id|run --graph file --graph-file negative.txt --out o"
	"disconnected edge list|gap --graph file --graph-file disconnected.txt"
	"edge list with fewer nodes than data points|run --graph file --graph-file small.txt --out o"
	"unknown graph|run --graph hypercube --out o"
	"unknown loss|run --problem ordinal-svm --out o"
	"unknown algorithm|run --algo gossip-sgd --out o"
	"unknown regulariser|run --reg l3 --out o"
	"PSD cone on a vector problem|run --reg psd --out o"
	"n < 2|gap --graph cycle --n 1"
	"negative step size|run --gamma-c -1 --out o"
	"step exponent out of range|run --gamma-alpha 0.5 --out o"
	"T = 0|run --iters 0 --out o"
	"unknown schedule|run --schedule fast --out o"
	"schedule that does not apply|run --problem metric --data synthetic --schedule plain --out o"
	"rewiring probability out of range|gap --graph watts-strogatz --p 1.5"
	"points per node not dividing n|run --points-per-node 2 --out o"
	"unknown flag|run --iterations 10 --out o"
	"missing --out|run --iters 10"
	"zero checkpoint interval|run --checkpoint c --checkpoint-every 0s --out o"
	"graph too large for memory|gap --graph complete --n 3000000"
	"truncated checkpoint|run --iters 200 --no-optimum --out o --resume truncated.ckpt"
	"checkpoint with a flipped byte|run --iters 200 --no-optimum --out o --resume flipped.ckpt"
	"checkpoint of another configuration|run --iters 300 --no-optimum --out o --resume good.ckpt"
	"not a checkpoint|run --iters 200 --out o --resume notckpt.ckpt"
	"missing checkpoint|run --iters 200 --out o --resume nosuch.ckpt"
	"divergence (huge step size)|run --problem auc-squared-hinge --graph complete --gamma-c 1e300 --no-optimum --out o"
	"log points beyond any use|run --iters 100 --log-points 9223372036854775807 --out o"
	"more log points than iterations|run --iters 100 --log-points 500 --out o"
	"absurd worker count|run --workers 9223372036854775807 --out o"
	"eval nodes below -1|run --eval-nodes -2 --out o"
	"graph file without --graph file|run --graph-file small.txt --out o"
	"edge list header with a negative count|gap --graph file --graph-file negative-n.txt"
	"unbounded data (/dev/zero)|run --data /dev/zero --out o"
	"cycle over the edge limit|gap --graph cycle --n 2000000000"
	"star over the edge limit|gap --graph star --n 2000000000"
	"--out that is a file|run --out bad-columns.csv"
	"--out that cannot be written|run --iters 2000000 --out /proc/pairgossip"
	"--checkpoint in a missing directory|run --checkpoint nodir/c.ckpt --out o"
	"CSV with Go's number syntax|run --data go-syntax.csv --out o"
	"CSV with a hexadecimal float|run --data hex.csv --out o"
	"label column named but absent|run --data header.csv --label-name y --out o"
	"column names without a header|run --data header.csv --label-name label --csv-header absent --out o"
	"unknown CSV header mode|run --data header.csv --csv-header yes --out o"
)

# --- Sweeps (issue #15: sweep files, sbatch values, results databases) ---
# One block, appended to the cases above. Bad arguments cannot hold spaces
# or newlines here (the cases are split on blanks), so the newline in
# --sbatch comes from a file whose name matches the glob in the case: in
# the table, each ? of that command stands for the newline or space it
# expands to.
printf 'base:\n  iters: 010\n' >octal.yaml
printf 'base:\n  iters: 1_000\n' >underscore.yaml
printf 'axes:\n  seed: {range: [18446744073709551614, 18446744073709551616]}\n' >seed-range.yaml
printf 'axes:\n  seed: {range: [0, 18446744073709551615]}\n' >seed-all.yaml
printf 'name: s\nbase:\n  iters: 20\n  eval_nodes: 2\n  log_points: 2\noptimum: false\naxes:\n  seed: [1, 2]\n' >sweep.yaml
: >$'--sbatch=--comment=x\ntouch INJECTED'
"$bin" sweep run sweep.yaml --results good.db --quiet >/dev/null 2>&1
LC_ALL=C sed 's/traces/tracex/g' good.db >other.db # an SQLite database of other tables
cp good.db v7.db # schema_version 7: the byte after "schema_version" in the meta table
off=$(grep -obUa 'schema_version[0-9]' v7.db | head -n 1 | cut -d: -f1)
printf '7' | dd of=v7.db bs=1 seek=$((off + 14)) conv=notrunc 2>/dev/null
cp good.db corrupt.db # the header of page 4, a b-tree page, overwritten
head -c 64 /dev/zero | tr '\0' '\377' | dd of=corrupt.db bs=1 seek=12288 conv=notrunc 2>/dev/null
printf 'name,value\na,1\n' >text.db
ln good.db hardlink.db
cases+=(
	"sweep file: octal-looking number (010)|sweep plan octal.yaml"
	"sweep file: number with underscores|sweep plan underscore.yaml"
	"sweep file: seed range past 2^64-1|sweep plan seed-range.yaml"
	"sweep file: 2^64 seeds|sweep plan seed-all.yaml"
	"sweep file without end (/dev/zero)|sweep plan /dev/zero"
	"newline in --sbatch (? = the newline, the space)|sweep slurm sweep.yaml --results-dir r --sbatch=--comment=x?touch?INJECTED"
	"--sbatch value that is not an option|sweep slurm sweep.yaml --results-dir r --sbatch=account=proj"
	"results database of another program|sweep run sweep.yaml --results other.db"
	"results database of an unknown schema_version|sweep status --results v7.db"
	"corrupt results database|sweep report corrupt.db --out rep"
	"results database that is not SQLite|sweep run sweep.yaml --results text.db"
	"merge of a database into a hard link of itself|sweep merge hardlink.db --results good.db"
)
# --- end of the sweep block ---

# --- Nothing silent, nothing lost (wrong results that looked right, data overwritten) ---
printf ',f1,f2,label,f3\n0,0.5,1.5,1,2\n1,-0.5,1,0,3\n2,1.5,0.5,1,1\n3,-1,0,0,2\n' >pandas.csv
printf 'idx,f1,label\n0,0.5,1\n1,-0.5,0\n2,1.5,1\n3,-1,0\n' >pandas-named.csv
printf '0.5,1\n-0.5,0\n1.5,1\n-1,0\n' >data.csv
ln -f data.csv data-link.csv
ln -sf loop-a loop-b && ln -sf loop-b loop-a
ln -sf nothing.csv dangling.csv
printf '1e308,1\n-1e308,0\n1,1\n2,0\n' >huge.csv
: >y.npy
head -c 70000000 /dev/zero | tr '\0' '1' >one-line.csv
cases+=(
	"pandas CSV (unnamed index column), header hint followed|run --data pandas.csv --csv-header present --label-name label --out o"
	"--checkpoint naming the data file|run --data data.csv --checkpoint data.csv --out o"
	"--checkpoint naming a hard link of the data file|run --data data.csv --checkpoint data-link.csv --out o"
	"--checkpoint naming --out's trace|run --checkpoint o/trace.csv --out o"
	"--save-model into a path through a file|run --save-model=data.csv/model --out o"
	"iterations past 2^53|run --iters 9223372036854775807 --out o"
	"a loop of symbolic links as data|run --data loop-a --out o"
	"a dangling symbolic link as data|run --data dangling.csv --out o"
	"data whose differences overflow|run --data huge.csv --out o"
	"one line of 70 MB (no newline)|run --data one-line.csv --out o"
	"--rows off grid and torus|run --rows 3 --out o"
	"--k off Watts–Strogatz|run --graph cycle --k 4 --out o"
	"--p on a grid|run --graph grid --p 0.5 --out o"
	"--graph-radius off the geometric graph|run --graph-radius 0.2 --out o"
	"--dim with the paper's synthetic set|run --data synthetic --dim 4 --out o"
	"--lambda without l2 or l1|run --lambda 0.1 --out o"
	"--b with an AUC loss|run --b 3 --out o"
	"--labels-file with a built-in data set|run --labels-file y.npy --out o"
	"reproduce with 10⁷ seeds|reproduce --runs 10000000 --out r"
	"reproduce with 2⁶³−1 seeds|reproduce --runs 9223372036854775807 --out r"
	"reproduce into an unwritable folder|reproduce --out /proc/pairgossip-report"
	"sweep results on /dev/null|sweep run sweep.yaml --results /dev/null"
	"--write-edges on /dev/null|run --iters 200 --no-optimum --write-edges /dev/null --out o"
	"--checkpoint on /dev/null|run --iters 200 --no-optimum --checkpoint /dev/null --out o"
)

{
	echo "# What a user sees on bad input"
	echo
	echo "Generated by \`scripts/robustness.sh\` from the real \`pairgossip\` binary: each row is one"
	echo "bad input, the first line the command prints on stderr, and its exit status (2: bad flag"
	echo "or input, named, including an --out or --checkpoint that cannot be written, found before"
	echo "any work; 1: the run failed, with the iteration and node for a divergence)."
	echo "No bad input leaves a partial output file: outputs and checkpoints are written to a"
	echo "temporary file, synced and renamed (over a symbolic link's target; a device, pipe or socket"
	echo "is refused as an output, never replaced); a checkpoint file is locked by the run writing it, and"
	echo "the temporary file of a killed checkpoint write is removed by the next run. A value that is"
	echo "not a finite number is null in summary.json and an empty field in trace.csv."
	echo
	echo "| # | bad input | command | what the user sees | exit |"
	echo "|---|---|---|---|---|"
	i=0
	for c in "${cases[@]}"; do
		i=$((i + 1))
		name=${c%%|*}
		args=${c#*|}
		set +e
		"$bin" $args >/dev/null 2>stderr.txt
		code=$?
		set -e
		msg=$(grep -v '^resuming' stderr.txt | head -n 1 || true)
		msg=${msg//|/\\|}
		echo "| $i | $name | \`pairgossip $args\` | $msg | $code |"
	done
	if [ -n "$tail" ]; then
		echo
		echo "$tail"
	fi
} >"$out"
echo "wrote $out"
