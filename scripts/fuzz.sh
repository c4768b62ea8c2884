#!/usr/bin/env bash
# Long fuzzing runs by hand: scripts/fuzz.sh [DURATION per target, default 10m].
# CI runs each target for a bounded count instead (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
d=${1:-10m}
for target in dataset:FuzzParseCSV dataset:FuzzParseLIBSVM graph:FuzzParseEdgeList sweep:FuzzParse sweep:FuzzSlurmScript engine:FuzzReadCheckpoint problem:FuzzRankOneUpdate problem:FuzzDist problem:FuzzPWKPair cmd/pairgossip:FuzzRunFlags \
	kernel:FuzzSyncLinear kernel:FuzzScale kernel:FuzzTriad kernel:FuzzLogisticRound kernel:FuzzEventPre kernel:FuzzEventLogistic kernel:FuzzEventLogisticLost kernel:FuzzEventLogisticPair kernel:FuzzPrefetch kernel:FuzzLog1pSum kernel:FuzzGer2 kernel:FuzzHouseholder kernel:FuzzMetricHinge8 kernel:FuzzMetricDist8 kernel:FuzzGemm8 kernel:FuzzRecords network:FuzzSessionLength; do
	pkg=${target%%:*}
	fn=${target##*:}
	echo "== $fn for $d"
	go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$d" "./${pkg}/"
done
