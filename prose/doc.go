// Package prose holds what the chapters' cells share when they write
// numbers into sentences and tables, so that a chapter's setup cell is a
// few lines instead of the same helpers written again in each chapter:
//
//   - short names for units' number style, for the quantities chapters
//     print most: Secs, Ms, Us (durations), IEC, SI, Size (bytes), Rate,
//     GBps (bandwidths), Pct, Num and Count;
//   - readable lists: List ("NIC0, NIC1") and Distinct;
//   - citations: GitHubRef ("NVIDIA/nccl#1259" for an issue's address);
//   - Markdown tables whose columns align by their content (text left,
//     numbers right), as a cell result or through display.Markdown: Table,
//     and CostTable for the cost model's rows; Presets for its presets,
//     folded under a count by kind.
//
// prose does not format on its own: every number goes through package
// units, the one number style of pages, charts and the command. It does not
// model, measure or draw. It exports no generic function (cells import it
// through yaegi's symbol tables) and does not import kernel/display: a
// Table renders through its Markdown method, which display looks for.
package prose
