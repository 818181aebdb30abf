// Package fit estimates Hockney's alpha (start-up latency) and beta
// (bandwidth) from measured (size, time) samples, with standard errors and
// residuals, so a chapter can put a measured sweep next to the model of
// package costmodel.
//
// It owns the least-squares fit of T = alpha + S/beta (plain, or weighted
// by 1/T^2 so that microsecond and second timings count alike) and a helper
// for rows of nccl-tests output (size in bytes, time in microseconds). It
// does not parse nccl-tests text: the caller passes numbers it parsed
// elsewhere, and this package knows nothing of probes or parsers. It uses
// gonum's stat.LinearRegression for the estimates.
package fit
