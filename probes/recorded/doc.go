// Package recorded keeps runs measured on real GPUs (the H200 machines
// this project measures on) inside the binary, so chapters show measured
// numbers, with their provenance, on machines without a GPU.
//
// Each file in data/ is a probes.Run saved by `commlab probe ... --save`;
// List names them and Load decodes one. A run's command is the one that
// made it, as a reader types it (Command prints it without the recording
// machine's files): a commlab verb, a public tool by its name, or a script
// of this repository; where the recording machine ran it from a folder of
// its own, the literal invocation is kept in Settings["recorded_with"], and
// a run whose command was lost says why in Settings[NotKept]. Folders
// beside the runs keep raw
// files a run's reader needs: torch.profiler traces (Files serves them)
// and hang/, chapter 6's recorded hang lab folders (HangLabs, HangLab),
// each with a run.json for its provenance. data/public/ keeps tool outputs
// people posted publicly (a multi-node NCCL log, say), which no machine of
// ours can record: Public returns one with the address its README gives.
// The package does not measure anything itself (probes/cuda and
// probes/nccl do).
package recorded
