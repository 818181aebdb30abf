package chart

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	svgTextEl  = regexp.MustCompile(`<text ([^>]*)>([^<]*)</text>`)
	svgAttr    = regexp.MustCompile(`(\w+)="([^"]*)"`)
	svgRotated = regexp.MustCompile(`<g transform="rotate\(90\)">\s*$`)
)

// TestSVGTextFits holds that no label of an SVG chart can be cut at the
// edge ("1 GiB" shown as "1 Gi"): every text element carries the width its
// layout gave it (textLength, so a browser's substitute font is fitted to
// it) and that width lies inside the drawing, along the text's direction.
func TestSVGTextFits(t *testing.T) {
	for _, tc := range sampleCharts(t) {
		svg, err := tc.chart.svgBytes()
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		w, h := tc.chart.Size()
		for _, loc := range svgTextEl.FindAllStringSubmatchIndex(s, -1) {
			attrs := map[string]string{}
			for _, a := range svgAttr.FindAllStringSubmatch(s[loc[2]:loc[3]], -1) {
				attrs[a[1]] = a[2]
			}
			label := s[loc[4]:loc[5]]
			length, err := strconv.ParseFloat(attrs["textLength"], 64)
			if err != nil {
				t.Errorf("%s: %q has no textLength: a substitute font may draw it wider than laid out", tc.name, label)
				continue
			}
			x, _ := strconv.ParseFloat(attrs["x"], 64)
			limit := w
			if svgRotated.MatchString(s[:loc[0]]) {
				limit = h
			}
			if x < 0 || x+length > limit+0.01 || !strings.Contains(s[loc[2]:loc[3]], `lengthAdjust="spacingAndGlyphs"`) {
				t.Errorf("%s: %q spans x %.1f..%.1f of %.0f", tc.name, label, x, x+length, limit)
			}
		}
	}
}
