// dynlib.h: the symbol tables probes/dynlib binds, for the cgo preambles
// of the packages that load a library through it. Include it with
//
//	#cgo CFLAGS: -I${SRCDIR}/../dynlib
//	#include "dynlib.h"
//
// and list the library's functions once, as X(name, return type, parameters):
//
//	#define LIB_SYMBOLS(X) X(libInit, int, (void)) X(libRun, int, (int))
//	DYNLIB_TABLE(lib_table, LIB_SYMBOLS)
//
// which declares the type libInit_t and the pointer p_libInit for each, and
// lib_table(), the table to hand to dynlib.Spec.Table or Library.Bind.
#ifndef COMMLAB_DYNLIB_H
#define COMMLAB_DYNLIB_H

#include <stddef.h>

// One entry of a table: the symbol's name and where its address goes. A
// table ends in { NULL, NULL }. probes/dynlib reads it with this layout.
typedef struct {
	const char* name;
	void** slot;
} dynlib_entry;

#define DYNLIB_DECLARE(name, ret, args) typedef ret (*name##_t) args; static name##_t p_##name;
#define DYNLIB_ENTRY(name, ret, args) { #name, (void**)&p_##name },
#define DYNLIB_TABLE(table, LIST) \
	LIST(DYNLIB_DECLARE) \
	static dynlib_entry table##_entries[] = { LIST(DYNLIB_ENTRY) { NULL, NULL } }; \
	static void* table(void) { return table##_entries; }

#endif
