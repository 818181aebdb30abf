// Package chart builds the figures the chapters share, on gonum/plot, with
// one house style: a notebook-cell size (720x450 logical pixels), sans-serif
// text sized for that cell, a colour-blind-safe palette (Okabe and Ito,
// "Color Universal Design", 2008) and units on every axis (byte sizes as
// 8 B ... 8 GiB, times as ns/µs/ms/s, bandwidths in GB/s; numbers in the
// units package's style).
//
// Layout is computed at draw time from each chart's own geometry
// (layout.go): every continuous axis keeps a margin so that no point
// touches the frame, and its labelled ticks reach past the data at both
// ends (a log byte axis of a sweep to 64 MiB is labelled to 64 MiB or
// beyond); the legend goes into the first corner of the data area where it
// covers no point, line, bar or label, else into a band under the title.
// A series without a colour takes the colour of an earlier series whose
// name differs only by role words ("LL measured", "LL fit"), so that a
// fit or a model is drawn in its measurement's colour.
//
// The builders are:
//
//   - TimeVsSize: log-log time against message size, with the latency-bound
//     and bandwidth-bound regions shaded on either side of the crossover
//     size S* = alpha*beta;
//   - BusBWVsSize: bus bandwidth against size (log x), measured points and a
//     model line, with an optional horizontal reference such as a link peak;
//   - Heatmap: a bandwidth matrix (GPU x GPU) with values in the cells, a
//     colour bar, and N/A cells for NaN;
//   - StackedBars: time breakdowns (latency term over bandwidth term) per
//     size or per algorithm;
//   - Timeline: spans on lanes along a time axis, such as kernels on CUDA
//     streams, to show compute and communication overlapping;
//   - Trees: trees over the same ranks one above the other, a column per
//     rank, such as the two trees of NCCL's double binary tree;
//   - Calibration: the calibrated model against published measurements,
//     its error per row against message size, by size regime, with the
//     known misses apart (`commlab model calibrate --chart`);
//   - Lines and Scatter: anything else, on linear or log axes with units,
//     with AddHLine and AddVLine for labelled reference lines.
//
// Every builder returns a *Chart. A Chart shows itself in a notebook through
// methods the kernel's display package looks for by name (MIMEBundle with
// PNG at twice the pixel density, SVG and a text description), and saves
// itself atomically as PNG, SVG or PDF.
//
// A Chart may be rendered many times, but not from several goroutines at
// once.
//
// chart is the only package that imports gonum.org/v1/plot. It takes its
// inputs as plain structs and slices of float64 so that notebook cells
// interpreted by yaegi can call it; it exports no generic API. ModelTime,
// ModelBusBW, BreakdownBySize and BreakdownByAlgorithm adapt costmodel
// sweeps; MeasuredTime, MeasuredBusBW and PeerMatrix adapt probes samples;
// NCCLTestsBusBW and NCCLTestsTime adapt parsed nccl-tests runs.
// It does not compute models, measure, parse tool output, or publish
// display messages: costmodel, probes, parse and kernel/display own
// those.
package chart
