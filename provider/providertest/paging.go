package providertest

import (
	"encoding/base64"
	"net/http"
	"strconv"
)

// defaultPageLimit is the page size when a list request has no limit.
const defaultPageLimit = 25

// writePage answers a list request with one page of all, as the Graph
// API's cursor paging does: {data, paging: {cursors: {before, after},
// next}}, where next (the same request with the after cursor) is present
// only when more items follow, and an empty page is {data: []} alone.
// limit and after come from the query; a cursor is the base64 offset of
// an item, and one that is not is refused as the platform does.
func (f *Fake) writePage(w http.ResponseWriter, r *http.Request, all []map[string]any) {
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = defaultPageLimit
	}
	start := 0
	if a := q.Get("after"); a != "" {
		b, derr := base64.StdEncoding.DecodeString(a)
		if start, err = strconv.Atoi(string(b)); derr != nil || err != nil || start < 0 {
			InvalidParameter("Invalid after cursor").write(w)
			return
		}
	}
	start = min(start, len(all))
	end := min(start+limit, len(all))
	if start == end {
		JSON(http.StatusOK, map[string]any{"data": []map[string]any{}}).write(w)
		return
	}
	paging := map[string]any{"cursors": map[string]any{"before": pageCursor(start), "after": pageCursor(end)}}
	if end < len(all) {
		q.Set("limit", strconv.Itoa(limit))
		q.Set("after", pageCursor(end))
		q.Del("before")
		next := f.URL
		if v := Version(r); v != "" {
			next += "/" + v
		}
		paging["next"] = next + r.URL.Path + "?" + q.Encode()
	}
	JSON(http.StatusOK, map[string]any{"data": all[start:end], "paging": paging}).write(w)
}

// pageCursor is the cursor of the item at offset i.
func pageCursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(i)))
}
