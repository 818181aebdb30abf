// Package exercise owns the check cells of a chapter's exercises: a
// learner completes an answer cell, and the check cell after it compares
// the answer with the chapter's reference and shows a verdict box (HTML
// in a notebook, text elsewhere) saying right, wrong or not answered yet.
//
//	answer := 0.0 // seconds: your answer here
//	exercise.Duration("ring all_reduce, 16 GPUs, 256 MB", answer, want, 0.01,
//		"2(n-1) alpha + 2(n-1)/n S/beta: ...").See("Compute: the ring")
//
// A wrong answer never shows the reference: the learner reads what is
// wrong in kind (its direction and order of magnitude, a likely unit slip,
// the chapter's Hint for a wrong choice) and the section that shows it
// (See). The reference and its why are the trainer's: they show only in a
// process started with COMMLAB_EXERCISE_VIEW=trainer, or =grader, where a
// check cell's text result is also its score for nbgrader's autograde (the
// share of its checks that are right: partial credit of a 1-point test
// cell). The variable is read once, at start, so no cell turns it on.
//
// A chapter ships with each answer cell blank (answer := 0.0 or "", see
// BlankAnswer), so a headless run of a learner's notebook says "not
// answered yet" at every check and still runs to the end. A reference
// answer of 0 is refused as malformed, so that a blank can never pass. The
// trainer's answers live apart in a solutions file (ParseSolutions); in
// solution mode (`commlab run --solutions`; a live kernel has none) each
// blank answer cell runs its solution instead, and every check says right.
// Where the reference would simply be the answer in plain sight (the
// check's code reads it off the artifact the learner is asked to read),
// the chapter holds it back (Check.Withheld): it ships a blank reference
// cell that only the trainer's solutions fill, and a learner's answer says
// "checked when graded" until a trainer's run or nbgrader's autograde
// (hidden tests, package course) brings the reference.
// A check never panics and never fails its cell: a wrong answer is a
// verdict, not an error, and a malformed exercise (a reference that is not
// a number, a negative tolerance) says so in its box. A check's result
// also carries its verdict as JSON under MIMEType, which runners count.
//
// exercise does not know the chapters' models: the reference answer is
// computed by the chapter (costmodel, a recorded run) and handed in. It
// uses only the standard library and package units (for values with
// units) and exports no generic functions, so cells import it through the
// yaegi symbol tables; display renders a Check by its HTML and String
// methods, so exercise does not import display.
package exercise
