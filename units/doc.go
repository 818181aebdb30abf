// Package units owns the words costmodel, probes, chart and the
// commlab command share, so that each is written once: byte sizes and
// their grammar (ParseSize), byte and rate formatting (FormatSize,
// ScaleSI, ScaleIEC, FormatRate), rates and durations as people type them
// (ParseRate, ParseDuration, ScaleSeconds), nccl-tests style size sweeps
// (Sweep, ParseSweep), nccl-tests' bus-bandwidth factors (BusBWFactor),
// and the one number style pages, charts and the command print in
// (Readable, ReadableSI, ReadableIEC, Duration, Percent, Number, Count).
//
// It does not model, measure or parse tool output. It uses only the
// standard library and exports no generic functions, so notebooks can
// import it through the yaegi symbol tables.
//
// # Sizes
//
// One grammar reads every size a person types, in flags and in cells:
//
//	"8", "1048576", "8B"       bytes
//	"4K", "1M", "8g", "1T"     a bare prefix, either case, is BINARY: 1K = 1024,
//	                           as nccl-tests reads -b/-e (parsesize in src/common.cu)
//	"1KiB", "1MiB", "1GiB"     BINARY: 1 MiB = 2^20
//	"1KB", "1kB", "1MB", "1GB" DECIMAL (SI): 1 MB = 10^6, as datasheets and the
//	                           cost model print them
//
// P (2^50 or 10^15) is read too. A space may separate number and unit; the
// number may have a fraction or an exponent ("1.5K" = 1536, "1e9") when the
// result is a whole number of bytes ("0.5" is an error). Negative sizes,
// sizes past the int64 range, bits ("1Gb") and unknown units are refused
// with errors that wrap ErrSize. Zero is a size; callers that need a
// positive one say so.
//
// The one divergence from nccl-tests: nccl-tests reads only the first
// letter of a suffix, so it takes "1MB" as 2^20; commlab takes it as 10^6.
// Write 1M or 1MiB for 2^20.
//
// # Rates
//
// GB/s is 10^9 bytes per second and Gb/s 10^9 bits per second, as
// nccl-tests and link datasheets print them; GiB/s is 2^30 bytes per second.
package units
