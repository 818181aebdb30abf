package flightrec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file decodes the subset of Python's pickle format that Flight
// Recorder dumps use: dicts, lists, tuples, strings, ints, floats, bools and
// None (protocol 0 to 5 opcodes), plus the torch.jit._pickle list builders
// torch's C++ pickler may emit. It is written here instead of using
// nlpodyssey/gopickle so that a dump cut short (a rank killed while writing)
// still yields the entries before the cut, errors name the byte offset, and
// no length field in a corrupt file can make it allocate more than the file
// holds.

// pyList and pyDict are pointers so memoised references see later appends.
type pyList struct{ items []any }

type pyDict struct {
	keys []any
	vals []any
	// index finds string keys without a scan: a corrupt pickle may hold
	// very many keys.
	index map[string]int
}

type pyTuple []any

type pyGlobal struct{ module, name string }

func (d *pyDict) set(k, v any) {
	if ks, ok := k.(string); ok {
		if d.index == nil {
			d.index = map[string]int{}
		}
		if i, ok := d.index[ks]; ok {
			d.vals[i] = v
			return
		}
		d.index[ks] = len(d.keys)
	} else {
		for i, old := range d.keys {
			if keyEqual(old, k) {
				d.vals[i] = v
				return
			}
		}
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
}

// setPairs sets alternating keys and values; an odd last item is dropped.
func (d *pyDict) setPairs(items []any) {
	for i := 0; i+1 < len(items); i += 2 {
		d.set(items[i], items[i+1])
	}
}

func (d *pyDict) get(k string) (any, bool) {
	if i, ok := d.index[k]; ok {
		return d.vals[i], true
	}
	return nil, false
}

// keyEqual compares dict keys without panicking on unhashable values
// (a corrupt pickle can use a tuple of lists as a key).
func keyEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

type pickleError struct {
	offset int
	msg    string
	eof    bool
}

func (e *pickleError) Error() string { return fmt.Sprintf("byte %d: %s", e.offset, e.msg) }

type unpickler struct {
	data  []byte
	pos   int
	op    int // offset of the opcode being executed
	stack []any
	marks []int
	memo  map[int]any
}

// unpickle decodes data. On error it also returns the best partial value:
// the outermost container with whatever was decoded into it so far.
func unpickle(data []byte) (any, error) {
	u := &unpickler{data: data, memo: map[int]any{}}
	v, err := u.run()
	if err != nil {
		return u.salvage(), err
	}
	return v, nil
}

func (u *unpickler) fail(eof bool, format string, args ...any) error {
	return &pickleError{offset: u.op, msg: fmt.Sprintf(format, args...), eof: eof}
}

func (u *unpickler) take(n int) ([]byte, error) {
	if n < 0 || n > len(u.data)-u.pos {
		return nil, u.fail(true, "pickle ends inside an operand (%d bytes wanted, %d left)", n, len(u.data)-u.pos)
	}
	b := u.data[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.data); i++ {
		if u.data[i] == '\n' {
			s := string(u.data[u.pos:i])
			u.pos = i + 1
			return s, nil
		}
	}
	return "", u.fail(true, "pickle ends inside a text operand")
}

func (u *unpickler) pop() (any, error) {
	floor := 0
	if len(u.marks) > 0 {
		floor = u.marks[len(u.marks)-1]
	}
	if len(u.stack) <= floor {
		return nil, u.fail(false, "stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 {
		return nil, u.fail(false, "stack underflow")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark returns the items pushed since the last MARK and drops the mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, u.fail(false, "no MARK on the stack")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) u32() (int, error) {
	b, err := u.take(4)
	if err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(b)), nil
}

func (u *unpickler) u64len() (int, error) {
	b, err := u.take(8)
	if err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(u.data)) {
		return 0, u.fail(true, "length %d runs past the end of the pickle", n)
	}
	return int(n), nil
}

// pop2 pops the top two items and returns them in stack order: below, then top.
func (u *unpickler) pop2() (below, top any, err error) {
	if top, err = u.pop(); err != nil {
		return nil, nil, err
	}
	if below, err = u.pop(); err != nil {
		return nil, nil, err
	}
	return below, top, nil
}

// topAs returns the container an opcode adds to (a *pyDict or a *pyList);
// op names the opcode in the error.
func topAs[T any](u *unpickler, op string) (T, error) {
	var zero T
	t, err := u.top()
	if err != nil {
		return zero, err
	}
	c, ok := t.(T)
	if !ok {
		return zero, u.fail(false, "%s on %T", op, t)
	}
	return c, nil
}

// popMarkOnto pops the items pushed since the last MARK and returns them
// with the container below them that op (SETITEMS, APPENDS, ADDITEMS) adds
// them to.
func popMarkOnto[T any](u *unpickler, op string) ([]any, T, error) {
	items, err := u.popMark()
	if err != nil {
		var zero T
		return nil, zero, err
	}
	c, err := topAs[T](u, op)
	return items, c, err
}

// opNames names the opcodes that share a case in step, for its errors.
var opNames = map[byte]string{'e': "APPENDS", 0x90: "ADDITEMS"}

func (u *unpickler) u8() (int, error) {
	b, err := u.take(1)
	if err != nil {
		return 0, err
	}
	return int(b[0]), nil
}

// length reads the length operand of a counted opcode: one byte for the
// SHORT_ and 1 forms, four for the plain and 4 forms, eight for the 8 forms.
func (u *unpickler) length(code byte) (int, error) {
	switch code {
	case 0x8a, 0x8c, 'U', 'C': // LONG1, SHORT_BINUNICODE, SHORT_BINSTRING, SHORT_BINBYTES
		return u.u8()
	case 0x8d, 0x8e: // BINUNICODE8, BINBYTES8
		return u.u64len()
	default: // LONG4, BINUNICODE, BINSTRING, BINBYTES
		return u.u32()
	}
}

// memoIndex reads the memo index operand of a PUT or GET opcode: one byte
// (BINPUT, BINGET), four (LONG_BINPUT, LONG_BINGET) or a text line (PUT, GET).
func (u *unpickler) memoIndex(code byte) (int, error) {
	switch code {
	case 'q', 'h':
		return u.u8()
	case 'r', 'j':
		return u.u32()
	}
	s, err := u.line()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, u.fail(false, "bad memo index %q", s)
	}
	return n, nil
}

func (u *unpickler) run() (any, error) {
	for {
		u.op = u.pos
		if u.pos >= len(u.data) {
			return nil, u.fail(true, "pickle ends without STOP")
		}
		code := u.data[u.pos]
		u.pos++
		if err := u.step(code); err != nil {
			if err == errStop {
				return u.pop()
			}
			return nil, err
		}
	}
}

var errStop = fmt.Errorf("stop")

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) step(code byte) error {
	switch code {
	case 0x80: // PROTO
		_, err := u.take(1)
		return err
	case 0x95: // FRAME: frames are advisory, the opcodes follow inline
		_, err := u.take(8)
		return err
	case '.': // STOP
		return errStop
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		if len(u.stack) > 0 && (len(u.marks) == 0 || u.marks[len(u.marks)-1] < len(u.stack)) {
			u.stack = u.stack[:len(u.stack)-1]
			return nil
		}
		_, err := u.popMark()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return err
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88: // NEWTRUE
		u.push(true)
	case 0x89: // NEWFALSE
		u.push(false)
	case 'J': // BININT
		b, err := u.take(4)
		if err != nil {
			return err
		}
		u.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'K': // BININT1
		n, err := u.u8()
		if err != nil {
			return err
		}
		u.push(int64(n))
	case 'M': // BININT2
		b, err := u.take(2)
		if err != nil {
			return err
		}
		u.push(int64(binary.LittleEndian.Uint16(b)))
	case 0x8a, 0x8b: // LONG1, LONG4
		n, err := u.length(code)
		if err != nil {
			return err
		}
		raw, err := u.take(n)
		if err != nil {
			return err
		}
		u.push(decodeLong(raw))
	case 'I', 'L': // INT, LONG (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		s = strings.TrimSuffix(s, "L")
		switch s {
		case "00":
			u.push(false)
		case "01":
			u.push(true)
		default:
			n, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return u.fail(false, "bad integer %q", s)
			}
			u.push(normInt(n))
		}
	case 'G': // BINFLOAT
		b, err := u.take(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'F': // FLOAT (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return u.fail(false, "bad float %q", s)
		}
		u.push(f)
	case 'X', 0x8c, 0x8d, // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
		'T', 'U', // BINSTRING, SHORT_BINSTRING
		'B', 'C', 0x8e: // BINBYTES, SHORT_BINBYTES, BINBYTES8
		n, err := u.length(code)
		if err != nil {
			return err
		}
		return u.pushString(n)
	case 'V': // UNICODE (text, raw-unicode-escape)
		s, err := u.line()
		if err != nil {
			return err
		}
		u.push(rawUnicodeUnescape(s))
	case 'S': // STRING (text, quoted)
		s, err := u.line()
		if err != nil {
			return err
		}
		if uq, err := strconv.Unquote(s); err == nil {
			s = uq
		} else if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
			s = s[1 : len(s)-1]
		}
		u.push(s)
	case '}': // EMPTY_DICT
		u.push(&pyDict{})
	case 'd': // DICT
		items, err := u.popMark()
		if err != nil {
			return err
		}
		d := &pyDict{}
		d.setPairs(items)
		u.push(d)
	case 's': // SETITEM
		k, v, err := u.pop2()
		if err != nil {
			return err
		}
		d, err := topAs[*pyDict](u, "SETITEM")
		if err != nil {
			return err
		}
		d.set(k, v)
	case 'u': // SETITEMS
		items, d, err := popMarkOnto[*pyDict](u, "SETITEMS")
		if err != nil {
			return err
		}
		d.setPairs(items)
	case ']', 0x8f: // EMPTY_LIST, EMPTY_SET (a set is kept as a list)
		u.push(&pyList{})
	case 'l', 0x91: // LIST, FROZENSET (kept as a list)
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&pyList{items: items})
	case 'a': // APPEND
		v, err := u.pop()
		if err != nil {
			return err
		}
		l, err := topAs[*pyList](u, "APPEND")
		if err != nil {
			return err
		}
		l.items = append(l.items, v)
	case 'e', 0x90: // APPENDS, ADDITEMS
		items, l, err := popMarkOnto[*pyList](u, opNames[code])
		if err != nil {
			return err
		}
		l.items = append(l.items, items...)
	case ')': // EMPTY_TUPLE
		u.push(pyTuple{})
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(pyTuple(items))
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(code-0x85) + 1
		items := make([]any, n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		u.push(pyTuple(items))
	case 'q', 'r', 'p': // BINPUT, LONG_BINPUT, PUT
		n, err := u.memoIndex(code)
		if err != nil {
			return err
		}
		return u.put(n)
	case 0x94: // MEMOIZE
		return u.put(len(u.memo))
	case 'h', 'j', 'g': // BINGET, LONG_BINGET, GET
		n, err := u.memoIndex(code)
		if err != nil {
			return err
		}
		return u.get(n)
	case 'c': // GLOBAL
		mod, err := u.line()
		if err != nil {
			return err
		}
		name, err := u.line()
		if err != nil {
			return err
		}
		u.push(pyGlobal{mod, name})
	case 0x93: // STACK_GLOBAL
		mod, name, err := u.pop2()
		if err != nil {
			return err
		}
		ms, _ := mod.(string)
		ns, _ := name.(string)
		u.push(pyGlobal{ms, ns})
	case 'R': // REDUCE
		fn, args, err := u.pop2()
		if err != nil {
			return err
		}
		g, ok := fn.(pyGlobal)
		tuple, tok := args.(pyTuple)
		// torch's pickler writes typed lists as build_intlist([...]) etc.
		if ok && tok && g.module == "torch.jit._pickle" && strings.HasPrefix(g.name, "build_") && len(tuple) == 1 {
			u.push(tuple[0])
			return nil
		}
		return u.fail(false, "unsupported callable %v in a Flight Recorder dump", fn)
	default:
		return u.fail(false, "unsupported pickle opcode 0x%02x", code)
	}
	return nil
}

func (u *unpickler) pushString(n int) error {
	b, err := u.take(n)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		b = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	u.push(string(b))
	return nil
}

func (u *unpickler) put(i int) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	u.memo[i] = v
	return nil
}

func (u *unpickler) get(i int) error {
	v, ok := u.memo[i]
	if !ok {
		return u.fail(false, "memo index %d was never stored", i)
	}
	u.push(v)
	return nil
}

// salvage closes every open MARK into the container below it, so the
// outermost dict holds what was decoded before the pickle was cut.
func (u *unpickler) salvage() any {
	for len(u.marks) > 0 {
		m := u.marks[len(u.marks)-1]
		u.marks = u.marks[:len(u.marks)-1]
		if m > len(u.stack) {
			continue
		}
		items := append([]any(nil), u.stack[m:]...)
		u.stack = u.stack[:m]
		if m == 0 {
			u.stack = append(u.stack, items...)
			continue
		}
		switch c := u.stack[m-1].(type) {
		case *pyList:
			c.items = append(c.items, items...)
		case *pyDict:
			c.setPairs(items)
		}
	}
	for _, v := range u.stack {
		if d, ok := v.(*pyDict); ok {
			return d
		}
	}
	return nil
}

// decodeLong reads a little-endian two's-complement integer.
func decodeLong(b []byte) any {
	if len(b) == 0 {
		return int64(0)
	}
	be := make([]byte, len(b))
	for i, c := range b {
		be[len(b)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return normInt(n)
}

func normInt(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// rawUnicodeUnescape decodes Python's raw-unicode-escape, used by protocol
// 0 strings: \uXXXX and \UXXXXXXXX escapes, other bytes as Latin-1.
func rawUnicodeUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n <= len(s) {
				if r, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32); err == nil && utf8.ValidRune(rune(r)) {
					b.WriteRune(rune(r))
					i += 1 + n
					continue
				}
			}
		}
		b.WriteRune(rune(c))
	}
	return b.String()
}
