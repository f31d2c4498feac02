package graph

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"switchboard/apperr"
)

// MarshalStringMap writes the StringMap scalar: a JSON object of strings
// (webhook headers, template parameters).
func MarshalStringMap(m map[string]string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		if m == nil {
			m = map[string]string{}
		}
		_ = json.NewEncoder(w).Encode(m)
	})
}

// UnmarshalStringMap reads the StringMap scalar (see StringValues).
// Errors: invalid.
func UnmarshalStringMap(v any) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("must be an object of strings")
	}
	return StringValues("object", m)
}

// StringValues reads an object whose values are strings or numbers (a
// number is kept as its decimal text), as template parameters and webhook
// headers are given. Errors: invalid naming field and the key.
func StringValues(field string, m map[string]any) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = x
		case json.Number:
			out[k] = x.String()
		case int64:
			out[k] = strconv.FormatInt(x, 10)
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return nil, apperr.Invalidf("%s values must be strings or numbers (%q is not)", field, k)
		}
	}
	return out, nil
}
