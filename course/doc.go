// Package course turns the chapters into a trainer's nbgrader course: one
// assignment per chapter, its source notebook holding the trainer's
// answers (read from the trainer's folder, trainer/solutions, at run time:
// the binary carries none) inside nbgrader's solution regions,
// and the course's nbgrader_config.py (the Go code stub, the exchange, the
// grader's view of the checks).
//
// The chapters carry nbgrader's cell metadata themselves (a ```go fence's
// nbgrader={...}): each blank answer cell is a solution cell named for its
// variable, each check cell an autograded test cell of 1 point (in the
// grader's view its result is the share of its checks right). Source
// adds the answers and locks every other cell. A source answer cell reads
//
//	// BEGIN SOLUTION
//	answer1 := <the trainer's code>
//	/* END SOLUTION: the learner's version has the blank below
//	answer1 := 0.0 // your expression, in seconds
//	BEGIN SOLUTION */
//	// END SOLUTION
//
// which runs the answer in the trainer's notebook, and which nbgrader's
// generate_assignment, with the empty Go code stub, turns back into the
// chapter's blank: both regions go, the blank line stays. So the learner's
// version is the chapter as shipped, and `commlab run --solutions` and
// the blank run work on it as on the chapter.
//
// An exercise may hold its reference back (exercise's Withheld): the
// chapter ships a blank reference cell, locked and not a solution cell
// (nbgrader={... "grade_id": NAME, "locked": true, "solution": false ...}),
// and the trainer's solutions file the code that sets it. Source puts that
// code at the top of the next check cell, inside nbgrader's hidden tests
// (// BEGIN HIDDEN TESTS ... // END HIDDEN TESTS): generate_assignment
// removes it from the learner's version, autograde restores it.
//
// The package writes files; it does not run nbgrader or the kernel. It
// sits on the subject's side and reads notebooks as nbformat JSON: the
// commlab command turns a chapter's markdown into its notebook (ToNotebook).
package course
