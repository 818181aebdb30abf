package nccl

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// DType is an NCCL data type; the values are ncclDataType_t's.
type DType struct {
	Name string
	Code int
	Size int64
}

// DTypes lists every type NCCL 2.24+ has (fp8 needs sm_89 or newer).
var DTypes = []DType{
	{"int8", 0, 1}, {"uint8", 1, 1}, {"int32", 2, 4}, {"uint32", 3, 4},
	{"int64", 4, 8}, {"uint64", 5, 8}, {"float16", 6, 2}, {"float32", 7, 4},
	{"float64", 8, 8}, {"bfloat16", 9, 2}, {"float8e4m3", 10, 1}, {"float8e5m2", 11, 1},
}

// RedOps are ncclRedOp_t's built-in operations.
var RedOps = []string{"sum", "prod", "max", "min", "avg"}

// LookupDType finds a type by name; nccl-tests' short names (float, half,
// bf16, double, int, ...) are accepted too.
func LookupDType(name string) (DType, error) {
	alias := map[string]string{"float": "float32", "half": "float16", "bf16": "bfloat16",
		"double": "float64", "int": "int32", "char": "int8", "fp8_e4m3": "float8e4m3", "fp8_e5m2": "float8e5m2",
		"f32": "float32", "f16": "float16", "f64": "float64"}
	n := strings.ToLower(name)
	if a, ok := alias[n]; ok {
		n = a
	}
	for _, t := range DTypes {
		if t.Name == n {
			return t, nil
		}
	}
	return DType{}, fmt.Errorf("nccl: unknown data type %q", name)
}

func lookupOp(name string) (int, error) {
	for i, o := range RedOps {
		if o == strings.ToLower(name) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("nccl: unknown reduction %q (want one of %v)", name, RedOps)
}

func (t DType) isFloat() bool { return t.Code >= 6 }
func (t DType) is8bit() bool  { return t.Size == 1 }

// patternPeriod is how many elements the input pattern repeats after.
const patternPeriod = 1 << 16

// modulus keeps every partial result exact in the type: sums of n values
// up to m, products of n values up to m.
func modulus(t DType, op int) int {
	switch {
	case t.Code >= 10: // fp8: integers are exact only up to 8 or 16
		return 1
	case op == 1 && t.is8bit(): // prod overflows 8 bits quickly
		return 1
	case op == 1:
		return 2
	}
	return 4
}

// value is rank r's input element i: a small integer that depends on both.
func value(r int, i int64, m int) float64 {
	j := i % patternPeriod
	return float64(1 + (j*7+int64(r)*3)%int64(m))
}

// encode writes v (a small integer) in type t.
func encode(t DType, dst []byte, v float64) {
	switch t.Code {
	case 0, 1:
		dst[0] = byte(int8(v))
	case 2, 3:
		binary.LittleEndian.PutUint32(dst, uint32(int32(v)))
	case 4, 5:
		binary.LittleEndian.PutUint64(dst, uint64(int64(v)))
	case 6:
		binary.LittleEndian.PutUint16(dst, f32ToF16(float32(v)))
	case 7:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(float32(v)))
	case 8:
		binary.LittleEndian.PutUint64(dst, math.Float64bits(v))
	case 9:
		binary.LittleEndian.PutUint16(dst, uint16(math.Float32bits(float32(v))>>16))
	case 10:
		dst[0] = toFP8(v, 4, 3, 7)
	case 11:
		dst[0] = toFP8(v, 5, 2, 15)
	}
}

// decode reads one element of type t.
func decode(t DType, b []byte) float64 {
	switch t.Code {
	case 0:
		return float64(int8(b[0]))
	case 1:
		return float64(b[0])
	case 2:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case 3:
		return float64(binary.LittleEndian.Uint32(b))
	case 4:
		return float64(int64(binary.LittleEndian.Uint64(b)))
	case 5:
		return float64(binary.LittleEndian.Uint64(b))
	case 6:
		return f16ToF64(binary.LittleEndian.Uint16(b))
	case 7:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case 9:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	case 10:
		return fromFP8(b[0], 4, 3, 7)
	case 11:
		return fromFP8(b[0], 5, 2, 15)
	}
	return math.NaN()
}

// f32ToF16 converts with round-to-nearest-even; the inputs here are small
// integers, but the conversion is the general one.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case (b>>23)&0xff == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := mant >> shift
		if rem := mant & (1<<shift - 1); rem > 1<<(shift-1) || (rem == 1<<(shift-1) && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}

func f16ToF64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 31:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}

// toFP8 encodes a finite value exactly representable in the format
// (eBits exponent bits, mBits mantissa bits); others are truncated.
func toFP8(v float64, eBits, mBits uint, bias int) byte {
	var sign byte
	if v < 0 {
		sign, v = 0x80, -v
	}
	if v == 0 {
		return sign
	}
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1 + bias
	if e <= 0 { // subnormal
		m := v / math.Pow(2, float64(1-bias)) * float64(int(1)<<mBits)
		return sign | byte(m)
	}
	m := (frac*2 - 1) * float64(int(1)<<mBits)
	return sign | byte(e)<<mBits | byte(m)
}

func fromFP8(b byte, eBits, mBits uint, bias int) float64 {
	sign := 1.0
	if b&0x80 != 0 {
		sign = -1
	}
	e := int(b>>mBits) & (1<<eBits - 1)
	m := float64(b & (1<<mBits - 1))
	scale := float64(int(1) << mBits)
	if eBits == 4 && e == 15 && b&7 == 7 { // e4m3 has one NaN and no infinity
		return math.NaN()
	}
	if eBits == 5 && e == 31 {
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	if e == 0 {
		return sign * m / scale * math.Pow(2, float64(1-bias))
	}
	return sign * (1 + m/scale) * math.Pow(2, float64(e-bias))
}

// reduceValues applies op to rank inputs as NCCL defines the result.
func reduceValues(op int, vals []float64) float64 {
	acc := vals[0]
	for _, v := range vals[1:] {
		switch op {
		case 0, 4:
			acc += v
		case 1:
			acc *= v
		case 2:
			acc = math.Max(acc, v)
		case 3:
			acc = math.Min(acc, v)
		}
	}
	if op == 4 {
		acc /= float64(len(vals))
	}
	return acc
}

// close reports whether got matches want for type t and op: exact, except
// averages, which NCCL computes by premultiplying (floats) or dividing
// with truncation (integers).
func closeEnough(t DType, op int, got, want float64) bool {
	if got == want {
		return true
	}
	if op != 4 || math.IsNaN(got) {
		return false
	}
	if !t.isFloat() {
		return math.Abs(got-want) <= 1
	}
	tol := 1e-6
	switch {
	case t.Code >= 10:
		tol = 0.13
	case t.Code == 6 || t.Code == 9:
		tol = 1e-2
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// patternBlock is rank r's input for one period, encoded.
func patternBlock(t DType, r, m int, elems int64) []byte {
	b := make([]byte, elems*t.Size)
	for i := int64(0); i < elems; i++ {
		encode(t, b[i*t.Size:], value(r, i, m))
	}
	return b
}
