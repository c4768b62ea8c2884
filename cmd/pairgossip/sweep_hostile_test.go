package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// Hostile input to pairgossip sweep (issue #15): each case exits with the
// status README.md gives (2: a bad flag, file or database, named) and a
// message that names what is wrong.

// sweepCase is one command and what it must print on stderr.
type sweepCase struct {
	name string
	args []string
	want string // in the first line of stderr
	code int
}

func checkSweepCases(t *testing.T, cases []sweepCase) {
	t.Helper()
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != c.code || !strings.Contains(first, c.want) {
			t.Errorf("%s: %v: exit %d, stderr %q; want exit %d and %q", c.name, c.args, code, errs, c.code, c.want)
		}
		if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic:") {
			t.Errorf("%s: crashed:\n%s", c.name, errs)
		}
	}
}

// TestSweepHostileNumbers: sweep files accept only ordinary decimal
// numbers (010 is not 8) and seed ranges near 2⁶⁴ give exact messages.
func TestSweepHostileNumbers(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	octal := file("octal.yaml", "base:\n  iters: 010\n")
	hex := file("hex.yaml", "axes:\n  seed: [1, 0x10]\n")
	under := file("under.yaml", "base:\n  iters: 1_000\n")
	seedHi := file("seedhi.yaml", "axes:\n  seed: {range: [18446744073709551614, 18446744073709551616]}\n")
	seedAll := file("seedall.yaml", "axes:\n  seed: {range: [0, 18446744073709551615]}\n")
	checkSweepCases(t, []sweepCase{
		{"octal", []string{"sweep", "plan", octal}, `octal.yaml:2: key "iters": "010": a leading 0 is not accepted (YAML reads 010 as octal 8)`, 2},
		{"hexadecimal", []string{"sweep", "plan", hex}, `hex.yaml:2: axis "seed": key "seed": "0x10": hexadecimal, octal and binary numbers are not accepted`, 2},
		{"underscore", []string{"sweep", "run", under, "--results", filepath.Join(dir, "u.db")}, `under.yaml:2: key "iters": "1_000": underscores are not accepted`, 2},
		{"seed past 2^64-1", []string{"sweep", "plan", seedHi}, `seedhi.yaml:2: axis "seed": key "seed": range [18446744073709551614, 18446744073709551616]: 18446744073709551616 is out of range: expected a non-negative integer up to 18446744073709551615`, 2},
		{"2^64 seeds", []string{"sweep", "plan", seedAll}, `seedall.yaml:2: axis "seed": key "seed": range [0, 18446744073709551615]: 18446744073709551616 values, more than the limit 100000`, 2},
	})
	if _, err := os.Stat(filepath.Join(dir, "u.db")); err == nil {
		t.Error("a refused sweep file created its results database")
	}
	ok := file("seedtop.yaml", "axes:\n  seed: {range: [18446744073709551614, 18446744073709551615]}\n")
	if code, out, errs := runCLI("sweep", "plan", ok); code != 0 || !strings.Contains(out, "18446744073709551615") {
		t.Errorf("seeds at 2^64-1: exit %d %q %q", code, out, errs)
	}
}

// TestSweepHostileFileSize: sweep plan reads at most 16 MiB of a sweep file
// and lines of at most 1 MiB, also from devices and pipes, which have no
// size (sweep plan /dev/zero grew without limit).
func TestSweepHostileFileSize(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.yaml") // sparse: 17 MiB of size, no data written
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(17 << 20)
		f.Close()
	}
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("base:\n  iters: 10\nname: "+strings.Repeat("x", 1<<20)+"\n"), 0o644)
	cases := []sweepCase{
		{"17 MiB file", []string{"sweep", "plan", huge}, "huge.yaml: 17825792 bytes, more than a sweep file may have (16 MiB)", 2},
		{"1 MiB line", []string{"sweep", "plan", long}, "long.yaml:3: line longer than 1048576 bytes: not a sweep file", 2},
		{"folder", []string{"sweep", "plan", dir}, dir + ": is a directory", 2},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, sweepCase{"/dev/zero", []string{"sweep", "plan", "/dev/zero"}, "/dev/zero:1: line longer than 1048576 bytes: not a sweep file", 2})
	}
	checkSweepCases(t, cases)
}

// TestSweepHostileSlurm: sweep slurm refuses a control character in any
// value that goes into the batch script (a newline in --sbatch wrote a
// command into it), naming the flag, and writes no script.
func TestSweepHostileSlurm(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(cliSweep), 0o644)
	nlFile := filepath.Join(dir, "a\nb.yaml")
	os.WriteFile(nlFile, []byte(cliSweep), 0o644)
	nlBin := filepath.Join(dir, "pg\nrm -rf x")
	os.WriteFile(nlBin, []byte("#!/bin/sh\n"), 0o755)
	r := filepath.Join(dir, "r")
	slurm := func(args ...string) []string {
		return append([]string{"sweep", "slurm", file, "--results-dir", r}, args...)
	}
	const inject = "every value goes into the batch script, where it could end the #SBATCH block and start a command"
	checkSweepCases(t, []sweepCase{
		{"newline in --sbatch", slurm("--sbatch=--comment=x\ntouch INJECTED"), `--sbatch: "--comment=x\ntouch INJECTED" contains a newline: ` + inject, 2},
		{"carriage return in --sbatch", slurm("--sbatch=--comment=x\rtouch INJECTED"), `--sbatch: "--comment=x\rtouch INJECTED" contains a carriage return`, 2},
		{"NUL in --sbatch", slurm("--sbatch=--comment=x\x00"), `--sbatch: "--comment=x\x00" contains the control character U+0000`, 2},
		{"second --sbatch", slurm("--sbatch=--account=p", "--sbatch=--qos=q\n#SBATCH --x"), `--sbatch: "--qos=q\n#SBATCH --x" contains a newline`, 2},
		{"not an option", slurm("--sbatch=account=p"), `--sbatch: "account=p" is not an sbatch option (write e.g. --sbatch=--account=proj)`, 2},
		{"newline in --partition", slurm("--partition=debug\nid"), `--partition: "debug\nid" contains a newline`, 2},
		{"newline in --mem", slurm("--mem=4G\nid"), `--mem: "4G\nid" contains a newline`, 2},
		{"quote in --partition", slurm("--partition=a'b"), `--partition: bad value "a'b": no spaces, quotes or backslashes`, 2},
		{"newline in --results-dir", []string{"sweep", "slurm", file, "--results-dir", r + "\nid"}, `--results-dir: "` + r + `\nid" contains a newline`, 2},
		{"space in --results-dir", []string{"sweep", "slurm", file, "--results-dir", r + " x"}, `--results-dir: SLURM's #SBATCH --output cannot name "` + r + ` x" as it is (it has " "`, 2},
		{"% in --results-dir", []string{"sweep", "slurm", file, "--results-dir", r + "%j"}, `(it has "%"; spaces, quotes, backslashes and % are not accepted)`, 2},
		{"newline in --binary", slurm("--binary", nlBin), `--binary: "` + dir + `/pg\nrm -rf x" contains a newline`, 2},
		{"newline in --script", slurm("--script", filepath.Join(dir, "x\ny.sbatch")), `--script: "` + dir + `/x\ny.sbatch" contains a newline`, 2},
		{"newline in the sweep file's path", []string{"sweep", "slurm", nlFile, "--results-dir", r}, `the sweep file: "` + dir + `/a\nb.yaml" contains a newline`, 2},
	})
	if _, err := os.Stat(r); err == nil {
		t.Errorf("a refused sweep slurm made %s", r)
	}
	nlDir := filepath.Join(dir, "w\nid")
	os.Mkdir(nlDir, 0o755)
	t.Chdir(nlDir)
	checkSweepCases(t, []sweepCase{{"newline in the current folder", slurm(), "the current folder: " + strconv.Quote(nlDir) + " contains a newline", 2}})
}

// TestSweepSlurmShellQuoting: the script and the submit:/then: lines sweep
// slurm prints are shell-quoted: with paths full of spaces, quotes, $ and
// backticks, bash reads each back as the one word it is (bash -c), the
// script parses (sh -n), and running it runs the binary in the right
// folder with the right arguments.
func TestSweepSlurmShellQuoting(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	nasty := filepath.Join(t.TempDir(), `it's a "dir" $HOME `+"`id`"+` & ; | \ *`)
	if err := os.Mkdir(nasty, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(nasty, "my 'sweep'.yaml")
	os.WriteFile(file, []byte(cliSweep), 0o644)
	bin := filepath.Join(nasty, "pair gossip $(id)")
	// A stand-in for the binary: it records its folder and arguments.
	os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s\\0' \"$(pwd)\" \"$@\" > \"$FAKE_OUT\"\n"), 0o755)
	script := filepath.Join(nasty, "job `id`.sbatch")
	results := filepath.Join(t.TempDir(), "r$HOME`id`")
	t.Chdir(nasty)
	code, out, errs := runCLI("sweep", "slurm", file, "--results-dir", results, "--binary", bin, "--script", script, "--tasks", "2")
	if code != 0 {
		t.Fatalf("sweep slurm: exit %d %s %s", code, out, errs)
	}
	words := func(cmdline string) []string {
		t.Helper()
		b, err := exec.Command(bash, "-c", "printf '%s\\0' "+cmdline).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", cmdline, err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	}
	var submit, then string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, "submit:  "); ok {
			submit = s
		}
		if s, ok := strings.CutPrefix(l, "then:    "); ok {
			then = s
		}
	}
	if got, want := words(submit), []string{"sbatch", script}; !slices.Equal(got, want) {
		t.Errorf("submit line %q reads back as %q, want %q", submit, got, want)
	}
	if got, want := words(then), []string{bin, "sweep", "merge", results, "--results", filepath.Join(results, "results.db")}; !slices.Equal(got, want) {
		t.Errorf("then line %q reads back as %q, want %q", then, got, want)
	}
	if b, err := exec.Command(sh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v\n%s", err, b)
	}
	text, _ := os.ReadFile(script)
	hash := regexp.MustCompile(`--plan-hash ([0-9a-f]+)`).FindStringSubmatch(string(text))
	if hash == nil {
		t.Fatalf("no plan hash:\n%s", text)
	}
	rec := filepath.Join(t.TempDir(), "args")
	cmd := exec.Command(bash, script)
	cmd.Dir = t.TempDir() // the script changes into the folder sweep slurm ran in
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=3", "FAKE_OUT="+rec)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the script: %v\n%s\n%s", err, b, text)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	want := []string{nasty, "sweep", "run", file, "--task-id", "1", "--tasks", "2", "--results-dir", results, "--cores", "3", "--plan-hash", hash[1]}
	if !slices.Equal(got, want) {
		t.Errorf("the script ran\n%q\nwant\n%q\nscript:\n%s", got, want, text)
	}
}

// TestSweepHostileDatabases: a results database that cannot be used is
// refused at once with exit status 2 (a bad file, as README.md says) and a
// message naming it, by every command, and nothing is written into it: an
// unrelated SQLite database, one of an unknown schema_version, a file that
// is not SQLite, a corrupt database (PRAGMA quick_check), and a merge of a
// database into itself under another name (hard or symbolic link), which
// waited 30 s for SQLITE_BUSY.
func TestSweepHostileDatabases(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(cliSweep), 0o644)
	good := filepath.Join(dir, "good.db")
	if code, out, errs := runCLI("sweep", "run", file, "--results", good, "--quiet"); code != 0 {
		t.Fatalf("sweep run: %d %s %s", code, out, errs)
	}
	goodBytes, _ := os.ReadFile(good)
	db := func(name string, edit func(st *sql.DB)) string {
		p := filepath.Join(dir, name)
		st, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		edit(st)
		return p
	}
	execSQL := func(q string) func(*sql.DB) {
		return func(st *sql.DB) {
			if _, err := st.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	other := db("other.db", execSQL(`CREATE TABLE foo(x); INSERT INTO foo VALUES (1)`))
	v7 := filepath.Join(dir, "v7.db")
	os.WriteFile(v7, goodBytes, 0o644)
	db("v7.db", execSQL(`UPDATE meta SET value = '7' WHERE key = 'schema_version'`))
	text := filepath.Join(dir, "text.db")
	os.WriteFile(text, []byte("name,value\na,1\n"), 0o644)
	corrupt := filepath.Join(dir, "corrupt.db")
	bad := append([]byte(nil), goodBytes...)
	copy(bad[3*4096:], bytes.Repeat([]byte{0xff}, 64)) // the header of page 4, a b-tree page
	os.WriteFile(corrupt, bad, 0o644)
	hard, sym := filepath.Join(dir, "hard.db"), filepath.Join(dir, "sym.db")
	if err := os.Link(good, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(good, sym); err != nil {
		t.Fatal(err)
	}
	const notSweep = `not a pairgossip sweep results database (its tables: foo; a results database has meta, plan, runs, traces)`
	var cases []sweepCase
	for _, c := range []struct{ path, want string }{
		{other, other + ": " + notSweep},
		{v7, v7 + `: schema_version "7", but this pairgossip reads version 1`},
		{text, text + ": not an SQLite database"},
		{corrupt, corrupt + ": the database is corrupt ("},
	} {
		name := filepath.Base(c.path)
		cases = append(cases,
			sweepCase{name + ": run", []string{"sweep", "run", file, "--results", c.path}, c.want, 2},
			sweepCase{name + ": status", []string{"sweep", "status", "--results", c.path}, c.want, 2},
			sweepCase{name + ": report", []string{"sweep", "report", c.path, "--out", filepath.Join(dir, "rep")}, c.want, 2},
			sweepCase{name + ": diff", []string{"sweep", "diff", good, c.path}, c.want, 2},
			sweepCase{name + ": merge from", []string{"sweep", "merge", c.path, "--results", filepath.Join(dir, "new.db")}, c.want, 2},
			sweepCase{name + ": merge into", []string{"sweep", "merge", good, "--results", c.path}, c.want, 2},
		)
	}
	same := "cannot merge a database into itself"
	cases = append(cases,
		sweepCase{"merge into itself", []string{"sweep", "merge", good, "--results", good}, good + ": is the destination " + good + " itself (the same file): " + same, 2},
		sweepCase{"merge a hard link", []string{"sweep", "merge", hard, "--results", good}, hard + ": is the destination " + good + " itself (the same file): " + same, 2},
		sweepCase{"merge a symbolic link", []string{"sweep", "merge", sym, "--results", good}, sym + ": is the destination " + good + " itself", 2},
		sweepCase{"merge into a symbolic link", []string{"sweep", "merge", good, "--results", sym}, good + ": is the destination " + sym + " itself", 2},
		sweepCase{"report --out a file", []string{"sweep", "report", good, "--out", text}, "--out " + text + ": a file, not a folder", 2},
		sweepCase{"merge a folder holding the destination", []string{"sweep", "merge", dir, "--results", filepath.Join(dir, "task-0.db")}, "", 2},
	)
	os.WriteFile(filepath.Join(dir, "task-0.db"), goodBytes, 0o644)
	cases[len(cases)-1].want = filepath.Join(dir, "task-0.db") + ": is the destination"
	checkSweepCases(t, cases)

	// Nothing was written: the refused files are as they were, and a merge
	// whose source was refused created no destination.
	if b, _ := os.ReadFile(good); !bytes.Equal(b, goodBytes) {
		t.Error("a refused merge changed the destination")
	}
	if b, _ := os.ReadFile(corrupt); !bytes.Equal(b, bad) {
		t.Error("the corrupt database was written to")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
		t.Error("a merge of a refused source created its destination")
	}
	st, _ := sql.Open("sqlite", other)
	defer st.Close()
	var n int
	if err := st.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the unrelated database now has %d tables (%v); sweep wrote into it", n, err)
	}
}

// TestSweepTwoRunners: two sweep run processes started together on one
// database split the runs (each run once, by one of them) instead of both
// running all of them, and both end with every run done.
func TestSweepTwoRunners(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildSweepBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(strings.Replace(cliSweep, "seed: {range: [1, 2]}", "seed: {range: [1, 4]}", 1)), 0o644)
	db := filepath.Join(dir, "r.db")
	var cmds [2]*exec.Cmd
	var outs [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = exec.Command(bin, "sweep", "run", file, "--results", db, "--cores", "1")
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	ran := 0
	re := regexp.MustCompile(`: (\d+) run now \((\d+) complete`)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("runner %d: %v\n%s", i, err, outs[i].String())
		}
		m := re.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("runner %d:\n%s", i, outs[i].String())
		}
		n, _ := strconv.Atoi(m[1])
		ran += n
	}
	if ran != 16 {
		t.Errorf("the two runners ran %d runs in all, want the sweep's 16 once:\n%s\n%s", ran, outs[0].String(), outs[1].String())
	}
	code, out, errs := runCLI("sweep", "status", "--results", db)
	if code != 0 || !strings.Contains(out, "16 runs: 16 complete, 0 diverged, 0 failed, 0 pending") {
		t.Errorf("status: %d %s %s", code, out, errs)
	}
}
