package exercise_test

import (
	"fmt"
	"math"

	"github.com/commlab/commlab/exercise"
)

// A ring all_reduce of 256 MB over 16 GPUs on 25 GB/s links with 5 us per
// step: T = 2(n-1) alpha + 2(n-1)/n S/beta.
func ringTime(n int, size, alpha, beta float64) float64 {
	return 2*float64(n-1)*alpha + 2*float64(n-1)/float64(n)*size/beta
}

const why = "T = 2(n-1) alpha + 2(n-1)/n S/beta: 30 steps of 5 us plus 1.875 x 256 MB at 25 GB/s"

func ExampleDuration() {
	want := ringTime(16, 256e6, 5e-6, 25e9)
	fmt.Println(exercise.Duration("ring all_reduce, 16 GPUs, 256 MB", want, want, 0.01, why))
	// A wrong answer says what is wrong in kind and where the chapter
	// shows it, never the reference: that is for the trainer's view.
	fmt.Println(exercise.Duration("ring all_reduce, 16 GPUs, 256 MB", want/2, want, 0.01, why).See("Compute"))
	fmt.Println(exercise.Duration("ring all_reduce, 16 GPUs, 256 MB", 0, want, 0.01, why))
	// Output:
	// ✓ right: ring all_reduce, 16 GPUs, 256 MB: 19.35 ms
	// ✗ wrong: ring all_reduce, 16 GPUs, 256 MB: got 9.675 ms: too low by a few times; one direction against both, or a term counted once instead of twice? (see Compute)
	// … not answered yet: ring all_reduce, 16 GPUs, 256 MB: complete the answer cell above, then run this cell again
}

func ExampleNumber() {
	// The crossover of a ring all_reduce is n alpha beta, in bytes.
	want := 8 * 5e-6 * 25e9
	fmt.Println(exercise.Number("crossover, 8 GPUs", 1e6, want, 0.05, "n alpha beta"))
	fmt.Println(exercise.Number("crossover, 8 GPUs", 125e3, want, 0.05, "n alpha beta = 8 x 5 us x 25 GB/s"))
	fmt.Println(exercise.Number("crossover, 8 GPUs", math.NaN(), want, 0.05, "n alpha beta"))
	// Output:
	// ✓ right: crossover, 8 GPUs: 1,000,000
	// ✗ wrong: crossover, 8 GPUs: got 125,000: too low by a few times; bits against bytes (Gb/s against GB/s)?
	// … not answered yet: crossover, 8 GPUs: complete the answer cell above, then run this cell again
}

func ExampleBytes() {
	// A decode-step TP all_reduce: batch 8 x hidden 8192 x 2 bytes.
	fmt.Println(exercise.Bytes("all_reduce message", 131072, 8*8192*2, 0, "batch x hidden x dtype"))
	fmt.Println(exercise.Bytes("all_reduce message", 128e3, 8*8192*2, 0, "batch x hidden x dtype: 8 x 8192 x 2 B"))
	// Output:
	// ✓ right: all_reduce message: 128 KiB
	// ✗ wrong: all_reduce message: got 125 KiB: close, but too low (under 10% off): a constant, a rounding or a term; binary against decimal prefixes (KiB against KB)?
}

func ExampleRate() {
	fmt.Println(exercise.Rate("NDR port, one way", 400e9, 50e9, 0.01, "400 Gb/s is 50 GB/s"))
	// Output:
	// ✗ wrong: NDR port, one way: got 400 GB/s: too high by a few times; bits against bytes (Gb/s against GB/s)?
}

func ExampleChoice() {
	options := []string{"latency", "bandwidth"}
	fmt.Println(exercise.Choice("64 KB all_reduce, 8 GPUs: bound by", " Latency", "latency", options, "14 alpha = 70 us against 4.5 us of transfer"))
	fmt.Println(exercise.Choice("64 KB all_reduce, 8 GPUs: bound by", "compute", "latency", options, "14 alpha = 70 us against 4.5 us of transfer"))
	// A chapter's hint for a wrong option says why it cannot be right.
	fmt.Println(exercise.Choice("64 KB all_reduce, 8 GPUs: bound by", "bandwidth", "latency", options, "14 alpha = 70 us against 4.5 us of transfer").
		Hint("bandwidth", "64 KB is below this ring's crossover").See("Compute"))
	fmt.Println(exercise.Choice("64 KB all_reduce, 8 GPUs: bound by", "", "latency", options, ""))
	// Output:
	// ✓ right: 64 KB all_reduce, 8 GPUs: bound by: Latency
	// ✗ wrong: 64 KB all_reduce, 8 GPUs: bound by: got compute: "compute" is not one of the options (latency, bandwidth)
	// ✗ wrong: 64 KB all_reduce, 8 GPUs: bound by: got bandwidth: 64 KB is below this ring's crossover (see Compute)
	// … not answered yet: 64 KB all_reduce, 8 GPUs: bound by: complete the answer cell above, then run this cell again (answer one of: latency, bandwidth)
}

func ExampleChecks() {
	big, small := ringTime(8, 1e9, 5e-6, 25e9), ringTime(8, 64e3, 5e-6, 25e9)
	fmt.Println(exercise.Checks{
		exercise.Duration("1 GB", big, big, 0.01, ""),
		exercise.Duration("64 KB", 0, small, 0.01, ""),
	})
	// Output:
	// 1 of 2 right
	// ✓ right: 1 GB: 70.07 ms
	// … not answered yet: 64 KB: complete the answer cell above, then run this cell again
}

// A chapter ships its answer cells blank; a solutions file holds the
// trainer's code for each, and solution mode runs it instead of the blank.
func ExampleParseSolutions() {
	src := "# Solutions: 1. Collectives\n\n" +
		"## answer1\n\nThirty steps of 5 us, then 1.875 x 256 MiB at 50 GB/s.\n\n" +
		"```go\nanswer1 := 2*(16-1)*5e-6 + 2*float64(16-1)/16*float64(256<<20)/50e9\n```\n"
	sols, err := exercise.ParseSolutions([]byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	blank := "answer1 := 0.0 // your expression, in seconds"
	if sol, ok := sols.For(blank); ok {
		fmt.Println(sol.Name, "runs:", sol.Code)
	}
	_, ok := sols.For("answer1 := 0.01 // a learner's own answer")
	fmt.Println("a learner's answer replaced:", ok)
	fmt.Println(sols.Match([]string{blank, "answer2 := \"\" // your answer"}))
	// Output:
	// answer1 runs: answer1 := 2*(16-1)*5e-6 + 2*float64(16-1)/16*float64(256<<20)/50e9
	// a learner's answer replaced: false
	// exercise: bad solutions: no solution for the blank answer cell(s) answer2
}
