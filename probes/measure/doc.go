// Package measure is the one call every chapter's Measure cell makes: it
// runs a measurement live when this machine can (a GPU, the CUDA runtime,
// NCCL), or shows a run recorded on H200s (probes/recorded) when it
// cannot, and says which with a banner.
//
//	mode := "auto" // in the chapter's parameters cell: auto, live or recorded
//	m, err := measure.NCCL(display.Context(), measure.Mode(mode), cfg, "nccl-h200x1-proto-auto")
//
// A Mode is "auto" (live when the GPU and the library are present, the
// recording otherwise), "live" (fail plainly when a live run is not
// possible) or "recorded". In auto mode every reason for not running live
// is kept in Measurement.Fallback and printed in the banner: an absent GPU
// or library ("no GPU here: ...", "no NCCL here: ..."), fewer GPUs than
// the run's nccl.Config.Devices name ("too few GPUs here: ...": a
// two-GPU run on a one-GPU machine), and any other live failure too ("live
// run failed: ..."), so a broken GPU machine never passes for one without
// a GPU. A cancelled context (a notebook interrupt)
// stops the call and falls back to nothing.
//
// Live NCCL sweeps run in a child process (nccl.MeasureInChild): a hang
// costs a killed child, not the notebook, and each run gets its own NCCL_*
// environment. The child is this executable (child.Run) when this
// process is the commlab binary (the kernel, `commlab run`); elsewhere
// Runner.NCCLCommand names it. Copy bandwidth and launch latency run in
// this process through probes/cuda; an interrupt stops the wait for them
// and a later call waits for the abandoned one to finish with the GPU.
//
// The banner reuses probes.Run.Provenance and prints the command as a
// shell line ("--save FILE", where the recording was written, left out):
//
//	recorded on 2x NVIDIA H200, driver 580.159.04, CUDA 13.0, NCCL 2.28.9, 2026-11-29, command "commlab probe nccl ..."
//	live on 1x NVIDIA H200, driver 580.159.04, CUDA 13.0, NCCL 2.28.9, 2026-12-01
//
// A Measurement shows in a notebook as that banner in a box (HTML),
// labelled LIVE or RECORDED; its Run renders as package cells draws runs.
//
// The package measures nothing itself (probes/cuda, probes/nccl do) and
// stores no runs: recorded data comes only through probes/recorded, by name.
package measure
