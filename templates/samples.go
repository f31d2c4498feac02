package templates

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"switchboard/apperr"
)

// maxSampleItems bounds sample_values before validation.
const maxSampleItems = MaxBodyVariables + 1

// sampleObject is the peer web client's form of a sample:
// {component: "body"|"header", index: 1.., param_name, value}.
type sampleObject struct {
	Component string          `json:"component"`
	Index     json.RawMessage `json:"index"`
	ParamName string          `json:"param_name"`
	Value     json.RawMessage `json:"value"`
}

// ParseSampleValues decodes sample_values: the spec's list of strings (the
// body variables' samples in order, then the TEXT header variable's), or
// the peer web client's list of {component, index, param_name, value}
// objects, which it turns into that list (body samples by index, then the
// header's). null and absent are an empty list. Errors: invalid.
func ParseSampleValues(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return []string{}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, apperr.Invalidf("sample_values must be an array of strings")
	}
	if len(items) > maxSampleItems {
		return nil, apperr.Invalidf("sample_values has more than %d items", maxSampleItems)
	}
	out := make([]string, 0, len(items))
	var body, header []sampleObject
	var bodyIdx []int
	for i, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			if len(body)+len(header) > 0 {
				return nil, apperr.Invalidf("sample_values mixes strings and objects")
			}
			out = append(out, s)
			continue
		}
		var o sampleObject
		if err := json.Unmarshal(it, &o); err != nil || len(out) > 0 {
			return nil, apperr.Invalidf("sample_values[%d] must be a string (or {component, index, value})", i)
		}
		var idx int
		if len(o.Index) > 0 && !bytes.Equal(o.Index, []byte("null")) {
			if err := json.Unmarshal(o.Index, &idx); err != nil || idx < 0 || idx > MaxBodyVariables {
				return nil, apperr.Invalidf("sample_values[%d].index must be an integer from 1 to %d", i, MaxBodyVariables)
			}
		}
		var v string
		if err := json.Unmarshal(o.Value, &v); err != nil {
			var n json.Number
			if json.Unmarshal(o.Value, &n) != nil {
				return nil, apperr.Invalidf("sample_values[%d].value must be a string", i)
			}
			v = n.String()
		}
		o.Value = nil
		o.ParamName = v // reused below as the value
		switch strings.ToLower(o.Component) {
		case "body", "":
			body = append(body, o)
			bodyIdx = append(bodyIdx, idx)
		case "header":
			header = append(header, o)
		default:
			return nil, apperr.Invalidf("sample_values[%d].component must be body or header", i)
		}
	}
	if len(body)+len(header) == 0 {
		return out, nil
	}
	order := make([]int, len(body))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bodyIdx[order[a]] < bodyIdx[order[b]] })
	for _, i := range order {
		out = append(out, body[i].ParamName)
	}
	if len(header) > 1 {
		return nil, apperr.Invalidf("sample_values has %d header samples; a TEXT header has at most 1 variable", len(header))
	}
	for _, h := range header {
		out = append(out, h.ParamName)
	}
	return out, nil
}
