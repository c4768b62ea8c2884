# Helpers of the rows of issue #18's targets table, sourced by bench/run.sh
# and bench/run_metric.sh (each writes the rows of its part; run.sh's
# assemble puts them at the top of bench/RESULTS.md). They need $py.

# met EXPR: yes if the Python expression EXPR is true, else no.
met() { $py -c "import sys; sys.exit(0 if $1 else 1)" && echo yes || echo no; }

# target WHAT GOAL MEASURED MET REASON: one row; the reason only when the
# target is not met.
target() {
	local why=$5
	[ "$4" = yes ] && why="—"
	echo "| $1 | $2 | $3 | $4 | $why |"
}
